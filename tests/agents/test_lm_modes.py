"""The language agent in every env: its mode, its prompts, and its answers scored by the env.

Each env runs a few steps of the packaged SmolLM2-135M-Instruct, as the README's
evaluate-style loop does: whatever the model says reaches the env's own parser and is
scored, and an answer in which nothing could be read is counted by the agent and flagged by
the env. Canned answers (no model) check the readers: what they find is sent as the env
expects it and scores as the truth.
"""

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import TransformersAgent
from mobileintent_gym.agents.lm_modes import (
    ASSIST,
    EXECUTE,
    PREDICT,
    PROPOSE,
    UNDERSTAND,
    mode_of,
    predict_question,
    propose_question,
    understand_question,
)
from mobileintent_gym.envs.assist import EXECUTE as EXECUTING
from mobileintent_gym.envs.proposals import answer
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.metrics.act2intent import parse_prediction

USER = {"user": "demo-ana"}
DAY = {"user": "demo-ana", "day": 0}
SMALL = GeneratorConfig(width=540, height=1200, noise=0.8)


def make(name):
    """Each env made small: one user, short histories, dumps shown to the text agent."""
    kwargs = {
        "Understand": {"days": 2},
        "Predict": {"history_days": 2, "predict_days": 1, "history": 8},
        "Session": {"device": "sim:540x1200", "history_days": 2, "play_days": 1,
                    "observation": ("instruction", "hierarchy")},
        "Proactive": {"history_days": 1, "play_days": 1, "history": 8, "hierarchy": True,
                      "candidates": True, "frame_size": (54, 120)},
        "Assist": {"history_days": 1, "play_days": 1, "history": 8, "hierarchy": True,
                   "config": SMALL},
    }[name]
    return gym.make(f"Act2Intent-{name}-v0", users=["demo-ana"], **kwargs)


@pytest.fixture(scope="module")
def envs():
    made = {}
    yield lambda name: made.setdefault(name, make(name))
    for env in made.values():
        env.close()


@pytest.mark.parametrize(("name", "mode"), [
    ("Understand", UNDERSTAND), ("Predict", PREDICT), ("Proactive", PROPOSE),
    ("Assist", ASSIST), ("Session", EXECUTE)])
def test_the_mode_follows_the_envs_observation_fields(envs, name, mode):
    assert mode_of(envs(name)) == mode
    assert mode_of(gym.make("Act2Intent-Execute-v0")) == mode_of(None) == EXECUTE


def test_a_mode_that_does_not_exist_is_named(small_lm):
    with pytest.raises(MobileIntentError, match="got 'chat'"):
        TransformersAgent(None, small_lm, mode="chat")


def _steps(env, agent, count, options):
    """Up to ``count`` steps; per step whether the agent read the answer, what it sent, info."""
    obs, info = env.reset(seed=0, options=options)
    out = []
    for _ in range(count):
        unparsed = agent.stats["unparsed"]
        sent = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(sent)
        out.append((agent.stats["unparsed"] == unparsed, sent, info))
        if terminated or truncated:
            break
    return out


def _prompt(lm, agent):
    return lm.tokenizer.decode(agent.last[0].prompt_ids)


def test_understand_segments_the_window_and_the_env_scores_it(envs, small_lm):
    env = envs("Understand")
    agent = TransformersAgent(env, small_lm, max_new_tokens=24)
    (read, sent, info), = _steps(env, agent, 1, USER)
    first_step = env.unwrapped.segments[0].steps[0].description
    assert f"Actions:\n1. {first_step}" in _prompt(small_lm, agent)
    assert agent.stats["answers"] == 1
    assert {"acc_g", "acc_s", "bleu4"} <= set(info)
    if not read:  # the model's own text went to the env, which names the problem
        assert sent == agent.last[0].text and info["malformed"]
        assert info["acc_g"] == info["acc_s"] == info["bleu4"] == 0.0


def test_understand_reads_a_loose_segmentation_and_sends_json(envs):
    env = envs("Understand")
    obs, _ = env.reset(seed=0, options=USER)
    truth = env.unwrapped.truth
    # Single quotes, a trailing comma:
    loose = "Here you go:\n{" + "".join(f"{text!r}: {steps!r}, " for text, steps in truth) + "}"
    _, reward, _, _, info = env.step(understand_question(obs).read(loose))
    assert info["malformed"] is None and reward == pytest.approx(1.0)


def test_understand_sends_an_intention_written_twice_twice():
    from mobileintent_gym.agents.lm_modes import _segmentation
    from mobileintent_gym.metrics.act2intent import read_segmentation

    sent = _segmentation('Here: {"Play music": [1, 2], "Reply": ["3"], "Play music": [4]}')
    assert read_segmentation(sent) == [("Play music", [1, 2]), ("Reply", [3]), ("Play music", [4])]


def test_predict_answers_each_intention_and_the_env_scores_it(envs, small_lm):
    env = envs("Predict")
    agent = TransformersAgent(env, small_lm, max_new_tokens=24)
    steps = _steps(env, agent, 2, DAY)
    prompt = _prompt(small_lm, agent)
    assert "Persona: " in prompt and "Current time: " in prompt
    assert agent.stats["answers"] == len(steps) == 2
    assert agent.episode_turns() == ()  # only Execute episodes keep their turns
    for read, _, info in steps:
        assert {"acc_c", "acc_s", "bleu4"} <= set(info)
        assert (info["malformed"] is None) == read  # what it read, the env reads too
        assert read or info["acc_c"] == 0.0


def test_predict_reads_a_loose_answer(envs):
    env = envs("Predict")
    obs, _ = env.reset(seed=0, options=DAY)
    truth = env.unwrapped.truth()
    loose = f"Prediction: {{'Event': '{truth.event}', 'Behaviour': {truth.behaviour!r},}}"
    _, reward, _, _, info = env.step(predict_question(obs).read(loose))
    assert info["malformed"] is None and reward == 1.0 and info["acc_s"] == pytest.approx(1.0)


def test_predict_passes_on_the_models_own_confidence(envs):
    # Dropped, every prediction had confidence 1 and the fallback could filter nothing.
    obs, _ = envs("Predict").reset(seed=0, options=DAY)
    read = predict_question(obs).read
    said = read('{"Event": "Work", "Behaviour": "Check the mail", "confidence": 0.3}')
    assert parse_prediction(said).confidence == 0.3 and parse_prediction(said).error is None
    assert parse_prediction(read('{"Event": "Work", "Behaviour": "x"}')).confidence == 1.0
    assert parse_prediction(read('{"Event": "Work", "Behaviour": "x", "Confidence": "high"}')
                       ).confidence == 0.0  # what the env makes of an unreadable one


def test_proactive_proposes_or_keeps_quiet_and_the_env_judges_it(envs, small_lm):
    env = envs("Proactive")
    agent = TransformersAgent(env, small_lm, max_new_tokens=24)
    (read, _, info), = _steps(env, agent, 1, DAY)  # one turn: it reads a 4,600-token prompt
    prompt = _prompt(small_lm, agent)
    assert "Known intentions (you may name one):" in prompt and "Now: " in prompt
    assert agent.stats["answers"] == 1
    assert len(env.unwrapped.outcomes) == 1
    assert set(env.unwrapped.outcomes) <= {"tp", "fp", "fn", "tn"}
    assert (info["malformed"] is None) == read


def test_proactive_reads_a_fenced_proposal_with_the_screen_in_the_prompt(envs):
    env = envs("Proactive")
    obs, _ = env.reset(seed=0, options=DAY)
    while env.unwrapped.truth().intent is None:
        obs, *_ = env.step("no action")
    question = propose_question(obs, "[0] chat \"Li Wei\" at (270,660)")
    assert "Screen:\n[0] chat \"Li Wei\"" in question.messages[1]["content"]
    said = question.read(f"```json\n{{'Intent': {env.unwrapped.truth().intent!r}}}\n```")
    _, reward, _, _, info = env.step(said)
    assert info["malformed"] is None and (reward, env.unwrapped.outcomes[-1]) == (1.0, "tp")


def test_assist_proposes_while_watching_and_acts_once_accepted(envs, small_lm):
    env = envs("Assist")
    agent = TransformersAgent(env, small_lm, max_new_tokens=16, max_elements=6)
    for read, _, info in _steps(env, agent, 2, DAY):
        # A verdict exactly when something was proposed; nothing is accepted while unread.
        assert ("accepted" in info) == (info["proposal"] is not None)
        assert info.get("accepted") in (None, False) or read
        assert (info["malformed"] is None) == read
    assert "App in front: " in _prompt(small_lm, agent) and "Screen:\n[0] " in _prompt(
        small_lm, agent)
    obs, info = env.reset(seed=0, options=DAY)
    while obs["mode"] != EXECUTING:  # the truth is accepted: the agent executes it
        truth = env.unwrapped.truth()
        obs, _, _, _, info = env.step(answer(truth) if truth else "no action")
    action = agent.act(obs, info)
    assert f"Intention: {obs['instruction']}" in _prompt(small_lm, agent)
    _, _, _, _, info = env.step(action)
    assert info["mode"] == EXECUTING and info["steps"] == 1
    assert ("no action in the model" in (info["invalid_action"] or "")
            ) == isinstance(action, str)


def test_session_executes_each_intention(envs, small_lm):
    env = envs("Session")
    agent = TransformersAgent(env, small_lm, max_new_tokens=8, max_elements=4)
    steps = _steps(env, agent, 2, DAY)
    assert "Actions so far:\n1. " in _prompt(small_lm, agent)
    assert agent.stats["answers"] == len(steps) == 2
    for read, _, info in steps:
        flagged = "no action in the model" in (info["invalid_action"] or "")
        assert flagged == (not read) and "segment_success" in info
