"""PPO learns a small curriculum: open a named chat (and reply), across users.

The curriculum: the chat templates that open a conversation — G-WCT-01 (open the chat)
and G-WCT-02 (open it and reply exactly "Understood") — with explicit instructions, common
and personal targets, on the four demo users: 16 (user, task) episodes. Each user's
chat list holds other chats in another order, so the policy must find the chat the
instruction names (swiping when it is below the fold), not memorise a position.

SB3's PPO acts through ``ElementActions`` (click element i, BACK, SWIPE, TYPE of the task's
text, ENTER, COMPLETE) and observes ``ElementFeatures`` (per element: named by the
instruction, holds a quoted phrase, text field, focused, kind; the route; the instruction's
words), with ``ElementPolicy``, which scores every element slot with one shared network
and, for comparison in the same run, with SB3's MlpPolicy (256 x 256). Every ``--eval-every``
steps the greedy policy plays the 16 episodes once; the success rate is the curve's point.
The random level is measured in the same run: uniform actions on the same 16 episodes,
``--random-repeats`` times.

Usage: ``python benchmarks/ppo_curriculum.py [--steps 150000] [--policies element mlp]
[--out out/ppo_curriculum]`` writes ``curve.json`` and ``curve.png`` there and prints the
figures.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.console import Repeated, positive_int, seed_int
from mobileintent_gym.rl.curves import plot_curves
from mobileintent_gym.users import USER_SETS
from mobileintent_gym.wrappers import ElementActions, ElementFeatures

TASKS = ("G-WCT-01:common:explicit", "G-WCT-01:personal:explicit",
         "G-WCT-02:common:explicit", "G-WCT-02:personal:explicit")
USERS = USER_SETS["demo"]  # the four demo users: 16 (user, task) episodes
EPISODES = len(USERS) * len(TASKS)
MAX_ELEMENTS = 24
TARGET = 0.8


def make_env(seed: int = 0) -> gym.Env:
    """One curriculum env: the Execute env on a 540x1200 phone, element actions and features."""
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", observation=("instruction",),
                   tasks=TASKS, users=USERS)
    env = ElementFeatures(ElementActions(env, MAX_ELEMENTS), MAX_ELEMENTS)
    env.action_space.seed(seed)
    return env


def success_rate(env: gym.Env, choose: Callable[[np.ndarray], int]) -> float:
    """Share of the curriculum's (user, task) episodes that ``choose`` completes."""
    wins = []
    for user in USERS:
        for task in TASKS:
            obs, info = env.reset(seed=0, options={"user": user, "task": task})
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(choose(obs))
                done = terminated or truncated
            wins.append(bool(info["success"]))
    return float(np.mean(wins))


def random_level(env: gym.Env, repeats: int, seed: int = 0) -> float:
    """Mean success of uniformly random actions over ``repeats`` passes of the episodes."""
    rng = np.random.default_rng(seed)
    return float(np.mean([success_rate(env, lambda _: int(rng.integers(env.action_space.n)))
                          for _ in range(repeats)]))


def train(steps: int, eval_every: int, envs: int = 8, seed: int = 0, policy: str = "element",
          log: Callable[[str], None] = print) -> tuple[list[tuple[int, float]], object]:
    """Train PPO for ``steps`` env steps; returns the curve (steps, greedy success) and model."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    from mobileintent_gym.rl.element_policy import ElementPolicy

    vec = make_vec_env(make_env, n_envs=envs, seed=seed)
    judge = make_env(seed)
    chosen = (ElementPolicy, {}) if policy == "element" else ("MlpPolicy",
                                                              {"net_arch": [256, 256]})
    model = PPO(chosen[0], vec, n_steps=256, batch_size=256, n_epochs=10, learning_rate=3e-4,
                ent_coef=0.01, gamma=0.95, policy_kwargs=chosen[1], seed=seed, device="cpu")
    model.set_logger(Logger(None, []))  # SB3's default makes a folder in /tmp per run
    curve: list[tuple[int, float]] = []

    def evaluate() -> None:
        rate = success_rate(judge, lambda obs: int(model.predict(obs, deterministic=True)[0]))
        curve.append((model.num_timesteps, rate))
        log(f"  {model.num_timesteps:>7} steps: greedy success {rate:.3f}")

    class Every(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps - (curve[-1][0] if curve else 0) >= eval_every:
                evaluate()
            return True

    evaluate()
    model.learn(steps, callback=Every())
    if curve[-1][0] != model.num_timesteps:
        evaluate()
    vec.close()
    judge.close()
    return curve, model


POLICIES = {"element": "ElementPolicy", "mlp": "MlpPolicy"}


def main() -> None:
    """Measure the random level, train each policy, print the figures, write the curves."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=positive_int, default=150_000,
                        help="PPO training steps per policy (default 150000)")
    parser.add_argument("--eval-every", type=positive_int, default=5_000,
                        help="training steps between greedy evaluations (default 5000)")
    parser.add_argument("--random-repeats", type=positive_int, default=20,
                        help="random-agent passes over the 16 episodes (default 20)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="seed of the env, the random agent and PPO (default 0)")
    parser.add_argument("--policies", nargs="+", action=Repeated, choices=sorted(POLICIES),
                        default=["element", "mlp"], help="policies trained (default: both)")
    parser.add_argument("--out", default="out/ppo_curriculum",
                        help="folder for curve.json and curve.png "
                             "(default out/ppo_curriculum)")
    args = parser.parse_args()
    env = make_env(args.seed)
    random = random_level(env, args.random_repeats, args.seed)
    env.close()
    print(f"random actions: success {random:.3f} over {args.random_repeats} x {EPISODES} episodes")
    runs = {}
    for policy in args.policies:
        started = time.perf_counter()
        curve, _ = train(args.steps, args.eval_every, seed=args.seed, policy=policy)
        seconds = time.perf_counter() - started
        reached = next((s for s, rate in curve if rate >= TARGET), None)
        print(f"PPO with {POLICIES[policy]}: {curve[-1][1]:.3f} after {curve[-1][0]} steps; "
              f"first >= {TARGET} at {reached} steps; {seconds:.0f} s "
              f"({curve[-1][0] / seconds:.0f} steps/s incl. evaluation)")
        runs[policy] = {"curve": curve, "reached_target_at": reached, "seconds": seconds}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "curve.json").write_text(json.dumps({"tasks": TASKS, "random": random, **runs},
                                               indent=1))
    series = {f"PPO, {POLICIES[p]} (greedy)": tuple(zip(*run["curve"], strict=True))
              for p, run in runs.items()}
    ends = (0, max(run["curve"][-1][0] for run in runs.values()))
    series["random actions"] = (ends, (random, random))
    plot_curves(series, out / "curve.png", f"PPO on the chat curriculum ({EPISODES} user x "
                "task episodes)", "environment steps", "success rate", ylim=(0.0, 1.0),
                target=TARGET)
    print(f"wrote {out / 'curve.json'} and {out / 'curve.png'}")


if __name__ == "__main__":
    main()
