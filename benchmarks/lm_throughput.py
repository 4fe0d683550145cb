"""Language-model throughput: batched against one-at-a-time generation, and a training step.

Workload: the prompts the language agent sees on the first screens of the oracle's episodes
(every task of ``demo-ana``, up to ``--prompts`` of them). Greedy generation gives the
same answers batched as one at a time, so both modes generate the same tokens:

* baseline: ``agents.lm.generate`` on one prompt at a time;
* batched: the same prompts in batches of ``--batch`` (what ``act_batch`` and the RePAIR
  rollouts do);
* training: forward and backward passes of ``rl.policy.response_logprobs`` through LoRA
  adapters over the prompts with their answers, ``--batch`` at a time (prompt and answer
  tokens per second).

Usage: ``python benchmarks/lm_throughput.py [--model ID] [--device cpu] [--out FILE]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import torch

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents.lm import generate, load_language_model
from mobileintent_gym.agents.prompts import step_prompt
from mobileintent_gym.console import positive_int
from mobileintent_gym.rl.policy import response_logprobs, with_lora
from mobileintent_gym.tasks import task_ids


def prompts(count: int) -> list:
    """The agent's prompts on the first screen of up to ``count`` tasks of ``demo-ana``."""
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction", "hierarchy"))
    out = []
    for task in task_ids()[:count]:
        obs, _ = env.reset(seed=0, options={"user": "demo-ana", "task": task})
        out.append(step_prompt(obs["instruction"], obs["hierarchy"], [])[0])
    env.close()
    return out


def synchronize(device) -> None:
    """Wait for the GPU's queued work (CUDA runs asynchronously), so a clock read is honest."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_generation(lm, batches: list, max_new_tokens: int) -> tuple[float, int]:
    """Seconds and generated tokens over ``batches`` of prompts."""
    synchronize(lm.device)
    started, tokens = time.perf_counter(), 0
    for batch in batches:
        tokens += sum(len(g.response_ids) for g in generate(lm, batch, max_new_tokens))
    synchronize(lm.device)
    return time.perf_counter() - started, tokens


def main() -> None:
    """Measure and print the three throughputs and the batching speed-up."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="default: the default small model")
    parser.add_argument("--device", help="torch device (default: a GPU when there is one)")
    parser.add_argument("--prompts", type=positive_int, default=8,
                        help="prompts generated for and trained on (default 8)")
    parser.add_argument("--batch", type=positive_int, default=4,
                        help="prompts per batch (default 4)")
    parser.add_argument("--max-new-tokens", type=positive_int, default=32,
                        help="tokens generated per prompt (default 32)")
    parser.add_argument("--out", help="write the figures to this JSON file")
    args = parser.parse_args()
    lm = load_language_model(args.model, args.device)
    work = prompts(args.prompts)
    generate(lm, work[:1], 4)  # warm-up
    one_s, one_tokens = timed_generation(lm, [[p] for p in work], args.max_new_tokens)
    groups = [work[i:i + args.batch] for i in range(0, len(work), args.batch)]
    batch_s, batch_tokens = timed_generation(lm, groups, args.max_new_tokens)
    answered = [g for group in groups for g in generate(lm, group, args.max_new_tokens)]
    policy = with_lora(lm.model)
    synchronize(lm.device)
    started = time.perf_counter()
    trained = 0
    for i in range(0, len(answered), args.batch):
        seqs = [(g.prompt_ids, g.response_ids) for g in answered[i:i + args.batch]]
        sum(lp.sum() for lp in response_logprobs(policy, seqs, lm.tokenizer.pad_token_id)
            ).backward()
        trained += sum(len(p) + len(r) for p, r in seqs)
    synchronize(lm.device)
    train_s = time.perf_counter() - started
    figures = {
        "model": lm.name, "device": str(lm.device), "prompts": len(work),
        "mean_prompt_tokens": sum(len(g.prompt_ids) for g in answered) / len(answered),
        "one_at_a_time_tokens_per_s": one_tokens / one_s,
        f"batch_{args.batch}_tokens_per_s": batch_tokens / batch_s,
        "batching_speedup": (batch_tokens / batch_s) / (one_tokens / one_s),
        "training_tokens_per_s": trained / train_s,
    }
    print("\n".join(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}"
                    for k, v in figures.items()))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
