"""Generated sessions and the intention envs are the same in every process for a seed."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import hashlib, json, random, sys
import numpy as np
# Each process disturbs the global generators differently: nothing may read them.
random.seed(int(sys.argv[1]))
np.random.seed(int(sys.argv[1]))
from tests.intents.test_determinism import digests
print(json.dumps(digests()))
"""


def digests():
    """Digests of two generated days and of each intention env's first observations."""
    import hashlib

    import gymnasium as gym

    import mobileintent_gym  # noqa: F401
    from mobileintent_gym.agents import OracleAgent
    from mobileintent_gym.intents import generate_sessions
    from mobileintent_gym.intents.act2intention import segment_record

    def sha(value):
        return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()

    days = generate_sessions("demo-ana", 2, seed=0)
    out = {"sessions": sha([[segment_record(s), [st.event.clock for st in s.steps]]
                            for day in days for s in day.segments])}
    understand = gym.make("Act2Intent-Understand-v0", users=["demo-ana"], days=2)
    obs, _ = understand.reset(seed=3)
    out["understand"] = sha([obs["steps"], understand.unwrapped.truth])
    predict = gym.make("Act2Intent-Predict-v0", users=["demo-ana"], history_days=1,
                       predict_days=1)
    out["predict"] = sha(predict.reset(seed=3)[0])
    session = gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=["demo-ana"],
                       history_days=1, play_days=1)
    obs, info = session.reset(seed=3)
    frames, oracle = hashlib.sha256(obs["screenshot"].tobytes()), OracleAgent(session)
    for _ in range(4):
        obs, _, _, _, info = session.step(oracle.act(obs, info))
        frames.update(obs["screenshot"].tobytes())
    out["session"] = [obs["instruction"], info["segment"], frames.hexdigest()]
    out["proactive"] = _proactive_digest(sha)
    out["assist"] = _assist_digest(sha)
    return out


def _proactive_digest(sha):
    import hashlib

    import gymnasium as gym

    from mobileintent_gym.agents.proactive import MostFrequentProposer

    env = gym.make("Act2Intent-Proactive-v0", users=["demo-ana"], history_days=1,
                   play_days=1, frame_size=(108, 240))
    obs, info = env.reset(seed=3)
    frames, agent, rewards = hashlib.sha256(), MostFrequentProposer(), []
    for _ in range(15):
        frames.update(obs["frames"].tobytes())
        obs, reward, _, _, info = env.step(agent.act(obs, info))
        rewards.append(reward)
    return [frames.hexdigest(), rewards, sha([obs["profile"], obs["context"]])]


def _assist_digest(sha):
    import hashlib

    import gymnasium as gym

    from mobileintent_gym.agents.assist import ASSISTANTS
    from mobileintent_gym.intents.generator import GeneratorConfig

    env = gym.make("Act2Intent-Assist-v0", users=["demo-ana"], history_days=1, play_days=1,
                   config=GeneratorConfig(540, 1200, noise=0.8))
    obs, info = env.reset(seed=3)
    frames, agent, done, trace = hashlib.sha256(), ASSISTANTS["history-oracle"](env, 3), False, []
    while not done:
        frames.update(obs["screenshot"].tobytes())
        obs, reward, done, _, info = env.step(agent.act(obs, info))
        trace.append([reward, info.get("accepted"), info["user_action"]])
    return [frames.hexdigest(), sha(trace), sha(info["day_scores"])]


def test_two_processes_generate_the_same_sessions_and_env_observations():
    noise = 11  # the other process's hash seed and global generators
    other = subprocess.Popen([sys.executable, "-c", SCRIPT, str(noise)], cwd=REPO,
                             env={**os.environ, "PYTHONHASHSEED": str(noise),
                                  "PYTHONPATH": str(REPO)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    here = digests()  # while the other process computes its own
    out, err = other.communicate(timeout=600)
    assert other.returncode == 0, err[-2000:]
    other = json.loads(out.strip().splitlines()[-1])
    assert other == here
    assert len({json.dumps(v) for v in other.values()}) == 6  # six digests, none alike
