"""The RePAIR trainer: cross-user rollout groups, UC-normalised advantages, token-level GRPO.

Each update draws a task id and two training users, runs 2 + 2 rollouts of the policy
(sampling; :mod:`mobileintent_gym.distributed.groups`) in lockstep in this process
(:mod:`.lockstep`) or on Ray actors (``ray``), reads each rollout's per-subgoal rewards
from the env, computes the group advantages over the UC subgoals
(:func:`~.repair.group_advantages`) and takes one AdamW step on the GRPO loss
(:func:`~.grpo.grpo_loss`: clipped token ratios, KL to the frozen reference). The policy is
the model with LoRA adapters; the reference is the same model with the adapters disabled:
the base model, or the SFT policy merged into it (``init``). Runs on the CPU or one GPU,
whichever torch sees. Needs the ``[llm]`` extra. Settings:
:class:`~.repair_config.RepairConfig`.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mobileintent_gym.agents.lm import Generation, LanguageModel, load_language_model
from mobileintent_gym.agents.transformers_agent import TransformersAgent
from mobileintent_gym.distributed.groups import (
    RolloutGroup,
    Runner,
    draw_group,
    rollout_groups,
)
from mobileintent_gym.distributed.pool import EXECUTE_ENV, RolloutPool
from mobileintent_gym.errors import MobileIntentError, require
from mobileintent_gym.files import atomic_folder, sole_writer
from mobileintent_gym.metrics.pair import pair_scores
from mobileintent_gym.rl.checkpoints import (
    checkpoint_due,
    load_checkpoint,
    resume_point,
    save_checkpoint,
    saved_when_stopped,
)
from mobileintent_gym.rl.grpo import grpo_loss
from mobileintent_gym.rl.lockstep import PolicyAgents, run_lockstep
from mobileintent_gym.rl.policy import (
    response_logprobs,
    save_adapters,
    with_lora,
)
from mobileintent_gym.rl.repair_config import RepairConfig, base_model, check_config
from mobileintent_gym.rl.runs import (
    RunLog,
    check_progress,
    check_run_folder,
    env_kwargs,
    make_envs,
    plot_log,
    run_settings,
    write_config,
)
from mobileintent_gym.rl.stopping import Stopping
from mobileintent_gym.rollouts import episodes
from mobileintent_gym.tasks import chosen_tasks
from mobileintent_gym.users.sets import resolve_users

__all__ = ["LOG_FIELDS", "RepairConfig", "RepairTrainer"]

LOG_FIELDS = ("update", "task", "users", "return", "success", "sar", "sar_uc", "sar_ua",
              "advantage_abs", "loss", "kl", "clipped", "unparsed", "gen_tokens",
              "gen_tokens_per_s", "seconds", "val_task_sr", "val_sar", "val_sar_uc",
              "val_sar_ua")


class RepairTrainer:
    """Trains LoRA adapters on a causal LM with RePAIR.

    Args:
        config: The run's settings.
        lm: An already loaded base model to train (changed in place); default: load
            ``config.model``.
    """

    def __init__(self, config: RepairConfig, lm: LanguageModel | None = None) -> None:
        self.torch = require("torch", "llm")
        require("peft", "llm")  # the adapters': refused before a model is loaded
        self.config = config
        self.train_users = resolve_users(config.users, config.profiles_dir)
        self.val_users = resolve_users(config.val_users, config.profiles_dir)
        self.tasks = chosen_tasks(config.tasks)
        check_config(config, self.train_users, self.val_users)
        base = lm or load_language_model(base_model(config), config.device)
        # Saved adapters name their base: the SFT adapters (themselves naming the model)
        # when the run starts from them, else the model.
        init = Path(config.init).expanduser().resolve() if config.init else None
        base_name = str(init) if init else base.name
        self.policy = with_lora(base.model, config.lora_rank, config.lora_alpha,
                                init and str(init), base_name, config.seed)
        self.lm = LanguageModel(self.policy, base.tokenizer, base.name, base.source)
        params = [p for p in self.policy.parameters() if p.requires_grad]
        # No weight decay, as LoRA RL usually runs: decay would pull the adapters toward
        # zero, i.e. toward the reference, on top of the KL penalty that already does.
        self.optimizer = self.torch.optim.AdamW(params, lr=config.lr, weight_decay=0.0)
        kwargs = {"device": config.phone, "users": self.train_users + self.val_users,
                  "profiles_dir": config.profiles_dir, "max_steps": config.max_steps}
        self.pool = None if config.ray is None else RolloutPool(
            config.ray, EXECUTE_ENV, env_kwargs(**kwargs), progress=False)
        self.envs = make_envs(2 * config.per_user, **kwargs) if self.pool is None else []
        self.done = 0  # updates completed
        self.closed = False  # by close(): its envs and Ray pool are gone
        self.stopping = Stopping()  # where Ctrl-C stops train()

    def train(self, progress: bool = True, resume: bool = False) -> list[dict[str, Any]]:
        """Run the remaining updates, logging each; returns the rows logged by this call.

        Once the run's folder is accepted, the envs (and the Ray pool) are closed when it
        returns, or fails: a trainer trains once. A refused folder changes nothing.

        Args:
            progress: Show a progress bar.
            resume: Continue from the run's latest checkpoint (its adapters, optimiser and
                update count; later log rows are dropped). Without one it starts afresh.

        Raises:
            MobileIntentError: For a fresh run into a folder holding a run, or a resumed
                one whose settings differ from the saved ones
                (:func:`~.runs.check_run_folder`), a folder another process is writing
                (:func:`~mobileintent_gym.files.sole_writer`), or a trainer already closed.
        """
        self._check_open()
        out, settings = Path(self.config.out), run_settings(self.config, self.lm.name)
        with sole_writer(out):
            check_run_folder(out, settings, resume)
            return self._train(out, settings, progress, resume)

    def _train(self, out: Path, settings: dict[str, Any], progress: bool, resume: bool
               ) -> list[dict[str, Any]]:
        """:meth:`train` in the folder ``out``, accepted for a run of ``settings``."""
        with contextlib.closing(self):
            start = resume_point(out, resume)
            if start is not None:
                check_progress(out, self.config.updates)
                self.load(start)
            write_config(out, settings)
            with contextlib.closing(RunLog(out, LOG_FIELDS, self.done if resume else None)
                                    ) as log:
                rows = self._updates(out, log, progress)
                plot_log(log.rows(), out / "curve.png")
                with atomic_folder(out / "adapters") as folder:
                    save_adapters(self.policy, folder)
        return rows

    def _updates(self, out: Path, log: RunLog, progress: bool) -> list[dict[str, Any]]:
        """The remaining updates, each logged (and validated, checkpointed when due).

        Ctrl-C stops the rollouts and the validation at once, and an optimiser step once it
        is done (:class:`~.stopping.Stopping`); the updates done since the latest checkpoint
        are then saved as one. A second Ctrl-C stops at once: those updates are lost, and
        it says which ``--resume`` runs again.
        """
        with saved_when_stopped(out, self.stopping, lambda: self.done, self.save):
            return self._run_updates(out, log, progress)

    def _run_updates(self, out: Path, log: RunLog, progress: bool) -> list[dict[str, Any]]:
        tqdm = require("tqdm.auto", "llm").tqdm
        config, rows = self.config, []
        with tqdm(total=config.updates, initial=self.done, disable=not progress,
                  desc="RePAIR") as bar:
            while self.done < config.updates:
                self.stopping.check()  # held since the last update's optimiser step
                row = self.update()
                try:  # with Ctrl-C held, only the last update (the run ends with it)
                    due = config.val_every and self.done % config.val_every == 0
                    if due and (self.done == config.updates or not self.stopping.requested):
                        with self.stopping.abortable():
                            row.update({f"val_{k}": v for k, v in self.validate().items()})
                finally:  # stopped while validating: logged without it
                    log.write(row)
                rows.append(row)
                bar.update(1)
                bar.set_postfix(ret=f"{row['return']:.2f}", kl=f"{row['kl']:.4f}")
                if checkpoint_due(self.done, config.checkpoint_every, config.updates):
                    self.save(out / f"checkpoint-{self.done}")
        return rows

    def update(self) -> dict[str, Any]:
        """One group and one optimiser step; returns the update's log row."""
        index = self.done + 1
        started = time.perf_counter()
        with self.stopping.abortable():
            group = self.group(index)
        records = group.records
        turns = [[t.generation for t in r.turns] for r in records]
        generated = sum(len(g.response_ids) for rollout in turns for g in rollout)
        gen_seconds = time.perf_counter() - started
        results = [r.result for r in records]
        advantages = group.advantages()
        with self.stopping.changing():
            stats = self.policy_step(turns, advantages)
            self.done = index
        scores = pair_scores(results)
        return {"update": index, "task": group.task, "users": "+".join(dict.fromkeys(group.users)),
                "return": float(np.mean([sum(r.rewards) for r in results])),
                "success": scores["task_sr"], "sar": scores["sar"], "sar_uc": scores["sar_uc"],
                "sar_ua": scores["sar_ua"], "advantage_abs": float(np.abs(advantages).mean()),
                **stats, "unparsed": sum(not t.read for r in records for t in r.turns),
                "gen_tokens": generated, "gen_tokens_per_s": generated / gen_seconds,
                "seconds": time.perf_counter() - started}

    def group(self, index: int) -> RolloutGroup:
        """The rollouts of update ``index``'s group, sampled by the current policy.

        The draw depends on the seed and the update only, so a resumed run draws what a
        whole one does, and ``ray`` runs the same episodes as the lockstep runner.
        """
        config = self.config
        # A seed sequence of (seed, update): CRC-32 seeds of "seed:update" strings gave
        # visibly correlated first draws across updates.
        rng = np.random.default_rng([config.seed, index])
        task, users = draw_group(rng, self.tasks, self.train_users)
        seed = int(rng.integers(2**31))
        run = self._runner(config.temperature, seed)
        (group,) = rollout_groups(run, [(task, users)], config.per_user, seed,
                                  config.profiles_dir)
        return group

    def validate(self) -> dict[str, float | None]:
        """PAIR scores of greedy episodes: every training task for every validation user."""
        work = episodes(self.val_users, self.tasks, self.config.seed,
                        profiles_dir=self.config.profiles_dir)
        scores = pair_scores([r.result for r in self._runner(0.0, self.config.seed)(work)])
        return {k: scores[k] for k in ("task_sr", "sar", "sar_uc", "sar_ua")}

    def _runner(self, temperature: float, seed: int) -> Runner:
        """Runs episodes with the current policy: on the Ray pool, else in lockstep here."""
        self._check_open()
        self.policy.eval()
        config = self.config
        if self.pool is not None:
            make_agent = PolicyAgents(self._cpu_policy(), temperature, config.max_new_tokens,
                                      config.max_elements)
            return functools.partial(self.pool.run, make_agent=make_agent)
        agent = TransformersAgent(None, self.lm, seed=seed, temperature=temperature,
                                  max_new_tokens=config.max_new_tokens,
                                  max_elements=config.max_elements)
        return functools.partial(run_lockstep, self.envs, agent)

    def _check_open(self) -> None:
        """Refuse to roll out once :meth:`close` (or :meth:`train`) gave back the envs."""
        if self.closed:
            raise MobileIntentError("this trainer is closed (train() closes it when it ends); "
                                    "build a new RepairTrainer to train again")

    def _cpu_policy(self) -> LanguageModel:
        """The policy as the actors get it: this one on the CPU, else a float32 CPU copy.

        The copy is float32 whatever the GPU's dtype: half precision on a CPU is slow or
        unsupported by some kernels.
        """
        if self.lm.device.type == "cpu":
            return self.lm
        import torch

        cpu_model = copy.deepcopy(self.policy).to(device="cpu", dtype=torch.float32)
        return dataclasses.replace(self.lm, model=cpu_model)

    def policy_step(self, rollouts: Sequence[Sequence[Generation]], advantages: np.ndarray
                    ) -> dict[str, float]:
        """The GRPO step over a group, one rollout's micro-batches at a time.

        The model stays in eval mode: gradients flow all the same, and no dropout makes the
        loss differ from the sampling policy's. The loss is a mean over rollouts of each
        rollout's mean over its tokens, so a micro-batch of n of rollout i's T_i tokens
        contributes its own token mean times n / (T_i · G): the gradient equals that of the
        whole group's loss at once. Probabilities are those the rollouts were sampled from
        (at the run's temperature), for π_θ, π_old and π_ref alike.
        """
        torch, config = self.torch, self.config
        # Eval mode (no dropout): the loss is then deterministic, and π_θ at the first step
        # is exactly the policy that sampled (ratios of 1).
        self.policy.eval()
        pad = self.lm.tokenizer.pad_token_id
        chunks = [(i, r[s:s + config.micro_batch]) for i, r in enumerate(rollouts)
                  for s in range(0, len(r), config.micro_batch)]
        totals = [sum(len(t.response_ids) for t in r) for r in rollouts]
        saved: dict[int, tuple[Any, Any]] = {}
        stats = {"loss": 0.0, "kl": 0.0, "clipped": 0.0}
        for epoch in range(config.epochs):
            self.optimizer.zero_grad()
            for c, (i, turns) in enumerate(chunks):
                seqs = [(t.prompt_ids, t.response_ids) for t in turns]
                logp = torch.cat(response_logprobs(self.policy, seqs, pad,
                                                   config.temperature))[None]
                if c not in saved:  # π_old: the sampling policy; π_ref: adapters disabled
                    with torch.no_grad(), self.policy.disable_adapter():
                        ref = torch.cat(response_logprobs(self.policy, seqs, pad,
                                                          config.temperature))[None]
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
        """Close the envs and the Ray pool (:meth:`train` does when it returns)."""
        for env in self.envs:
            env.close()
        self.envs = []
        if self.pool is not None:
            self.pool.close()
            self.pool = None
        self.closed = True

    def save(self, folder: Path) -> None:
        """Write adapters, optimiser state and the update count to ``folder``, atomically."""
        save_checkpoint(folder, self.policy, self.optimizer, self.done)

    def load(self, folder: Path) -> None:
        """Continue from a folder written by :meth:`save`.

        Raises:
            MobileIntentError: When the folder holds no trainer state, or its adapters or
                state cannot be read (a file cut short by a disk that filled).
        """
        self.done = load_checkpoint(folder, self.policy, self.optimizer, self.lm.device)["done"]
