"""The SFT warm start: LoRA adapters trained on the oracle's trajectories.

The study starts RePAIR from an SFT policy. Every step of the oracle's episodes on the
training users' tasks becomes one example: the prompt the language agent would see at that
step (:func:`~mobileintent_gym.agents.prompts.step_prompt`, with the oracle's earlier
actions as history) and the oracle's action as the answer. The
loss is the answer tokens' negative log-likelihood, each example weighted equally and
averaged over its tokens. Needs the ``[llm]`` extra.

A run keeps checkpoints as RePAIR's does (:mod:`.checkpoints`): every
``checkpoint_every`` optimiser steps, at the end, and where Ctrl-C stops it; resumed, it
goes on from the latest with the batches that follow it (their order is drawn from the
seed), so a stopped and resumed run trains what an uninterrupted one does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import logger

from mobileintent_gym.actions import Action
from mobileintent_gym.agents.lm import (
    LanguageModel,
    Messages,
    check_device,
    load_language_model,
)
from mobileintent_gym.agents.oracle import OracleAgent
from mobileintent_gym.agents.prompts import MAX_ELEMENTS, describe_action, step_prompt
from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.files import atomic_folder, sole_writer
from mobileintent_gym.rl.checkpoints import (
    checkpoint_due,
    load_checkpoint,
    resume_point,
    save_checkpoint,
    saved_when_stopped,
)
from mobileintent_gym.rl.policy import response_logprobs, save_adapters, with_lora
from mobileintent_gym.rl.runs import (
    SFT_CHECKPOINT_EVERY,
    SFT_LR,
    TRAIN_USERS,
    RunLog,
    check_run_folder,
    check_settings,
    make_envs,
    run_settings,
    write_config,
)
from mobileintent_gym.rl.stopping import Stopping
from mobileintent_gym.rollouts import rollout
from mobileintent_gym.tasks import chosen_tasks
from mobileintent_gym.users.sets import distinct_users, resolve_users

LOG_FIELDS = ("update", "epoch", "loss", "examples", "tokens_per_s", "seconds")


@dataclass(frozen=True)
class SftConfig:
    """Settings of an SFT run.

    Attributes:
        model: Hub id, folder or ``.gguf`` file of the base model (``None``: the default
            small model).
        out: Folder of the log and the adapters (``<out>/adapters``, which
            ``train repair --init`` takes).
        tasks: Task ids whose oracle trajectories are learnt (default: every task).
        users: Users whose trajectories are learnt: set names, profile names or paths;
            default the built-in ``train`` set (RePAIR's training users).
        epochs: Passes over the examples.
        batch_size: Examples per optimiser step.
        micro_batch: Examples per forward pass (gradients accumulate over a batch; fewer
            hold less memory).
        gradient_checkpointing: Keep only each layer's input for the backward pass and
            compute the rest again there: far less memory for long prompts, for one more
            forward pass of each layer.
        lr: AdamW learning rate.
        lora_rank: Rank of the LoRA adapters.
        lora_alpha: Their alpha.
        max_grad_norm: Gradient-norm clip.
        max_elements: Screen elements listed per prompt.
        checkpoint_every: Save adapters and optimiser every this many optimiser steps (0:
            only at the end and where Ctrl-C stops the run).
        seed: Seed of the adapters' initialisation and the example order.
        device: Torch device (``None``: a GPU when torch sees one, else the CPU).
        phone: Device config of the env.
        profiles_dir: Folder of user profiles named in ``users``.
    """

    model: str | None = None
    out: str = "out/sft"
    tasks: tuple[str, ...] | None = None
    users: tuple[str, ...] = TRAIN_USERS
    epochs: int = 2
    batch_size: int = 8
    micro_batch: int = 4
    gradient_checkpointing: bool = False
    lr: float = SFT_LR
    lora_rank: int = 16
    lora_alpha: int = 32
    max_grad_norm: float = 1.0
    max_elements: int = MAX_ELEMENTS
    checkpoint_every: int = SFT_CHECKPOINT_EVERY
    seed: int = 0
    device: str | None = None
    phone: str = "sim"
    profiles_dir: str | None = None


class _Recorder:
    """Acts like the oracle and records, per step, the prompt a language agent would see."""

    def __init__(self, env: gym.Env, max_elements: int) -> None:
        self.oracle, self.max_elements = OracleAgent(env), max_elements
        self.examples: list[tuple[list[dict[str, str]], str]] = []
        self.history: list[str] = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action:
        action = self.oracle.act(observation, info)
        messages, elements = step_prompt(observation["instruction"], observation["hierarchy"],
                                         self.history, None, self.max_elements)
        self.examples.append((messages, str(action)))
        self.history.append(describe_action(action, elements))
        return action


def demonstrations(env: gym.Env, users: Sequence[str], tasks: Sequence[str],
                   max_elements: int = MAX_ELEMENTS) -> list[tuple[Messages, str]]:
    """(prompt, oracle action) for every step of the oracle on every task of every user.

    Args:
        env: An Execute env observing ``instruction`` and ``hierarchy``.
        users: The users.
        tasks: The task ids.
        max_elements: Screen elements listed per prompt.
    """
    examples: list[tuple[Messages, str]] = []
    for user in users:
        for task in tasks:
            recorder = _Recorder(env, max_elements)
            for _ in rollout(env, recorder, {"user": user, "task": task}):
                pass
            examples += recorder.examples
    return examples


def tokenize(lm: LanguageModel, examples: Sequence[tuple[Messages, str]]
             ) -> list[tuple[list[int], list[int]]]:
    """(prompt ids, answer ids ending with the end-of-turn token) of each example."""
    tokenizer = lm.tokenizer
    return [(tokenizer(lm.prompt_text(m), add_special_tokens=False)["input_ids"],
             tokenizer(a, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id])
            for m, a in examples]


def epoch_batches(count: int, batch_size: int, epochs: int, seed: int = 0
                  ) -> list[tuple[int, list[int]]]:
    """(epoch from 0, example indices) of every batch: each epoch a new order of all.

    Each epoch visits every example once, in its own permutation drawn from ``seed``; its
    last batch may be smaller.
    """
    rng = np.random.default_rng(seed)
    return [(epoch, [int(i) for i in order[s:s + batch_size]]) for epoch in range(epochs)
            for order in [rng.permutation(count)] for s in range(0, count, batch_size)]


def train_sft(config: SftConfig, lm: LanguageModel | None = None, progress: bool = True,
              resume: bool = False) -> Path:
    """Train LoRA adapters on the oracle's trajectories; returns the adapters' folder.

    Args:
        config: The run's settings.
        lm: An already loaded base model (changed in place); default: load ``config.model``.
        progress: Show a progress bar.
        resume: Continue the run in ``config.out`` from its latest checkpoint (later log
            rows are dropped); without one it starts afresh.

    Raises:
        UnknownTaskError: Naming a wrong task id (before any model is loaded).
        MobileIntentError: Naming a setting out of range, an ``out`` folder that already
            holds a run (unless resumed) or that another process is writing, or a resumed
            run whose settings differ from the saved ones or whose examples differ from
            those its checkpoint was trained on.
    """
    for module in ("torch", "tqdm.auto", "peft"):  # refused before a model is loaded
        require(module, "llm")
    tasks = chosen_tasks(config.tasks)
    check_settings(config, "SFT", ("epochs", "batch_size", "micro_batch", "max_elements",
                                   "lora_rank"), ("lr", "lora_alpha", "max_grad_norm"),
                   intervals=("checkpoint_every",), flags=("gradient_checkpointing",))
    check_device(config.device)
    train_users = resolve_users(config.users, config.profiles_dir)
    distinct_users(train_users, config.profiles_dir, ", whose examples would count twice")
    with sole_writer(config.out):
        # The default model is compared once it is loaded (which one it is depends on
        # the machine).
        check_run_folder(config.out, run_settings(config, config.model), resume,
                         unknown=() if config.model else ("model",))
        # The phone first: one that cannot be reached is named before the model loads.
        env = make_envs(1, device=config.phone, users=train_users,
                        profiles_dir=config.profiles_dir)[0]
        try:
            base = lm or load_language_model(config.model, config.device)
            if resume:
                check_run_folder(config.out, run_settings(config, base.name), resume)
            examples = demonstrations(env, train_users, tasks, config.max_elements)
        finally:
            env.close()
        return _fit(config, base, examples, progress, resume)


def _fit(config: SftConfig, base: LanguageModel, examples: Sequence[tuple[Messages, str]],
         progress: bool, resume: bool) -> Path:
    """:func:`train_sft` on ``base``, in an ``out`` folder accepted for the run."""
    torch = require("torch", "llm")
    policy = with_lora(base.model, config.lora_rank, config.lora_alpha,
                       base_name=base.name, seed=config.seed)
    if config.gradient_checkpointing:  # non-reentrant: frozen inputs still give gradients
        policy.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs={"use_reentrant": False})
    optimizer = torch.optim.AdamW([p for p in policy.parameters() if p.requires_grad],
                                  lr=config.lr, weight_decay=0.0)  # as in RePAIR
    steps = _Steps(config, policy, optimizer, tokenize(base, examples),
                   base.tokenizer.pad_token_id)
    out = Path(config.out)
    start = resume_point(out, resume)
    if start is not None:
        steps.resume(start, base.device)
        if steps.done == len(steps.batches):  # as RePAIR's command says it
            logger.warn(f"{out} holds all {steps.done} optimiser steps: nothing to run")
    write_config(out, run_settings(config, base.name))  # first: a failed log leaves a run
    with contextlib.closing(RunLog(out, LOG_FIELDS, steps.done if resume else None)) as log:
        steps.run(out, log, progress)
    with atomic_folder(out / "adapters") as folder:
        save_adapters(policy, folder)
    return out / "adapters"


class _Steps:
    """The optimiser steps of an SFT run: counted, logged, checkpointed, stopped by Ctrl-C.

    Ctrl-C stops a step's forward and backward passes at once and waits for its optimiser
    step (:class:`~.stopping.Stopping`); the steps done since the latest checkpoint are
    then saved as one.
    """

    def __init__(self, config: SftConfig, policy: Any, optimizer: Any,
                 data: list[tuple[list[int], list[int]]], pad_id: int) -> None:
        self.config, self.policy, self.optimizer = config, policy, optimizer
        self.data, self.pad_id = data, pad_id
        self.params = [p for group in optimizer.param_groups for p in group["params"]]
        self.batches = epoch_batches(len(data), config.batch_size, config.epochs, config.seed)
        self.fingerprint = hashlib.sha256(json.dumps(data).encode()).hexdigest()
        self.done = 0  # optimiser steps taken
        self.stopping = Stopping()

    def run(self, out: Path, log: RunLog, progress: bool) -> None:
        """Take the remaining steps, each logged, checkpointed when due."""
        with saved_when_stopped(out, self.stopping, lambda: self.done, self.save):
            self._run(out, log, progress)

    def save(self, folder: Path) -> None:
        """Write adapters, optimiser state and the step count to ``folder``, atomically.

        The examples' fingerprint goes with them: a resume on other examples is refused.
        """
        save_checkpoint(folder, self.policy, self.optimizer, self.done,
                        examples=self.fingerprint)

    def resume(self, folder: Path, device: Any) -> None:
        """Go on from a checkpoint of :meth:`save`.

        Raises:
            MobileIntentError: When the examples differ from those the run trained on
                (another version of the package built other screens or prompts), besides
                what :func:`~.checkpoints.load_checkpoint` raises.
        """
        state = load_checkpoint(folder, self.policy, self.optimizer, device)
        if state.get("examples") != self.fingerprint:
            raise MobileIntentError(f"{folder} was trained on other examples than this run "
                                    "has (another version of the package, of its content "
                                    "encoder or of the tokenizer, showing other screens or "
                                    "prompts?); give another --out")
        self.done = state["done"]

    def _run(self, out: Path, log: RunLog, progress: bool) -> None:
        tqdm = require("tqdm.auto", "llm").tqdm
        total = len(self.batches)
        self.policy.train()
        with tqdm(total=total, initial=self.done, disable=not progress, desc="SFT") as bar:
            while self.done < total:
                self.stopping.check()  # held since the last step's optimiser step
                log.write(self.step())
                bar.update(1)
                if checkpoint_due(self.done, self.config.checkpoint_every, total):
                    self.save(out / f"checkpoint-{self.done}")

    def step(self) -> dict[str, Any]:
        """The next batch's optimiser step; returns its log row."""
        torch = require("torch", "llm")
        config, (epoch, batch) = self.config, self.batches[self.done]
        started = time.perf_counter()
        loss = 0.0
        with self.stopping.abortable():
            self.optimizer.zero_grad()
            for start in range(0, len(batch), config.micro_batch):  # gradients accumulate
                chunk = [self.data[i] for i in batch[start:start + config.micro_batch]]
                logps = response_logprobs(self.policy, chunk, self.pad_id)
                part = -torch.stack([lp.mean() for lp in logps]).sum() / len(batch)
                part.backward()
                loss += float(part.detach())
        with self.stopping.changing():
            torch.nn.utils.clip_grad_norm_(self.params, config.max_grad_norm)
            self.optimizer.step()
            self.done += 1
        seconds = time.perf_counter() - started
        tokens = sum(len(self.data[i][0]) + len(self.data[i][1]) for i in batch)
        return {"update": self.done, "epoch": epoch + 1, "loss": loss, "examples": len(batch),
                "tokens_per_s": tokens / seconds, "seconds": seconds}
