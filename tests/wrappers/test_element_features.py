"""ElementFeatures and ElementPolicy: features aligned with element actions, a policy that is
the same under any order of the elements, and the PPO benchmark's loop."""

import importlib
import importlib.util
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.phone.elements import element_at, read_screen
from mobileintent_gym.wrappers import ElementActions, ElementFeatures
from mobileintent_gym.wrappers.element_actions import touchable_points
from mobileintent_gym.wrappers.element_features import (
    KIND_BUCKETS,
    ROUTE_BUCKETS,
    SLOT_FLAGS,
    WORD_BUCKETS,
)

SLOTS = 48
WIDTH = len(SLOT_FLAGS) + KIND_BUCKETS
BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "ppo_curriculum.py"


def wrapped(**kwargs):
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", observation=("instruction",),
                   **kwargs)
    return ElementFeatures(ElementActions(env, SLOTS), SLOTS)


def slots(obs):
    return obs[:SLOTS * WIDTH].reshape(SLOTS, WIDTH)


def flag(name):
    return SLOT_FLAGS.index(name)


@pytest.mark.parametrize("task", ["G-WCT-01:personal:explicit", "G-WCT-02:common:explicit",
                                  "G-SPT-03:personal:explicit", "G-SPT-02:common:explicit"])
def test_the_slot_the_oracle_clicks_is_the_one_the_instruction_names(task):
    env = wrapped()
    obs, info = env.reset(seed=0, options={"user": "demo-chen", "task": task})
    label = env.unwrapped.task.target.label
    oracle, done, target_clicks = OracleAgent(env), False, 0
    while not done:
        xml = env.unwrapped.device.hierarchy()
        action, elements = oracle.act(obs, info), read_screen(xml)[0]
        # Slot i describes the element that ElementActions' action i clicks.
        assert [e.point for e in elements][:SLOTS] == touchable_points(xml)[:SLOTS]
        assert env.observation_space.contains(obs)
        features = slots(obs)
        assert features[:len(elements), flag("present")].all()
        assert not features[len(elements):].any()
        aimed = None if action.x is None else elements.index(
            element_at(elements, action.x, action.y))
        if aimed is not None and label in elements[aimed].texts:
            target_clicks += 1
            assert features[aimed, flag("named")] == 1
            # Rows showing other records are not named.
            others = [i for i, e in enumerate(elements) if e.kind == elements[aimed].kind
                      and label not in e.texts]
            assert others and not features[others, flag("named")].any()
        obs, _, terminated, truncated, info = env.step(_index_of(env, action))
        done = terminated or truncated
    assert info["success"] and target_clicks == 1
    env.close()


def _index_of(env, action):
    from mobileintent_gym.wrappers.element_actions import FIXED

    if action.x is not None:
        elements = read_screen(env.unwrapped.device.hierarchy())[0]
        return elements.index(element_at(elements, action.x, action.y))
    if action.text is not None:
        return SLOTS + FIXED.index("TYPE_TASK_TEXT")
    return SLOTS + FIXED.index("SWIPE_" + action.direction)


def test_a_field_holding_the_quoted_text_says_so_and_the_route_is_one_hot():
    env = wrapped()
    obs, info = env.reset(seed=0, options={"user": "demo-ana",
                                           "task": "G-WCT-02:common:explicit"})
    chats_route = obs[SLOTS * WIDTH:SLOTS * WIDTH + ROUTE_BUCKETS].copy()
    assert chats_route.sum() == 1
    device, oracle, action = env.unwrapped.device, OracleAgent(env), None
    while action is None or action.text is None:  # the oracle's steps up to its TYPE
        action = oracle.act(obs, info)
        obs, _, _, _, info = env.step(_index_of(env, action))
    features = slots(obs)
    index = [e.field for e in read_screen(device.hierarchy())[0]].index(True)
    assert features[index, flag("holds_quoted")] == 1 and features[index, flag("focused")] == 1
    assert features[:, flag("holds_quoted")].sum() == 1
    route = obs[SLOTS * WIDTH:SLOTS * WIDTH + ROUTE_BUCKETS]
    assert route.sum() == 1 and not np.array_equal(route, chats_route)
    assert obs[-WORD_BUCKETS:].sum() > 5  # the instruction's words
    env.close()


def test_sb3_accepts_the_wrapped_env():
    check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env
    env = wrapped(tasks=["G-WCT-01:common:explicit"])
    check_env(env, warn=False)
    env.close()


@pytest.fixture(scope="module")
def policy():
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is a test extra")
    import torch

    from mobileintent_gym.rl.element_policy import ElementPolicy

    env = wrapped()
    torch.manual_seed(0)
    made = ElementPolicy(env.observation_space, env.action_space, lambda _: 3e-4)
    env.close()
    return made


def test_the_element_policy_is_the_same_under_any_order_of_the_elements(policy):
    import torch

    env = wrapped()
    obs, _ = env.reset(seed=0, options={"user": "demo-ana", "task": "G-WCT-01:common:explicit"})
    env.close()
    present = int(slots(obs)[:, flag("present")].sum())
    order = np.random.default_rng(0).permutation(present)
    shuffled = obs.copy()
    shuffled[:present * WIDTH] = slots(obs)[order].ravel()
    with torch.no_grad():
        batch = torch.as_tensor(np.stack([obs, shuffled]))
        logits = policy.mlp_extractor.forward_actor(batch)
        values = policy.predict_values(batch)
    assert torch.allclose(logits[1, :present], logits[0, :present][order], atol=1e-6)
    assert torch.allclose(logits[1, SLOTS:], logits[0, SLOTS:], atol=1e-6)
    assert torch.allclose(values[0], values[1], atol=1e-6)
    with torch.no_grad():
        probs = policy.get_distribution(batch[:1]).distribution.probs[0]
    assert float(probs[present:SLOTS].sum()) == 0.0  # empty slots are never chosen
    assert float(probs.sum()) == pytest.approx(1.0)


def test_a_saved_element_policy_loads_with_its_width(tmp_path):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is a test extra")
    import torch

    from mobileintent_gym.rl.element_policy import ElementPolicy

    env = wrapped()
    narrow = ElementPolicy(env.observation_space, env.action_space, lambda _: 3e-4, hidden=32)
    env.close()
    narrow.save(tmp_path / "policy.zip")
    loaded = ElementPolicy.load(tmp_path / "policy.zip")
    assert loaded.hidden == 32
    for name, weights in narrow.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], weights)


def test_the_element_policy_refuses_other_spaces():
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is a test extra")
    from gymnasium import spaces

    from mobileintent_gym.rl.element_policy import ElementPolicy

    with pytest.raises(ValueError, match="ElementFeatures"):
        ElementPolicy(spaces.Box(0, 1, (10,), np.float32), spaces.Discrete(4), lambda _: 1e-3)


def test_the_ppo_benchmark_loop_trains_evaluates_and_counts():
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is a test extra")
    spec = importlib.util.spec_from_file_location("ppo_curriculum", BENCHMARK)
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    lines = []
    curve, model = benchmark.train(512, 256, envs=2, log=lines.append)
    assert model.num_timesteps == 512
    # Evaluated before training and after each 256 steps or more.
    assert curve[0][0] == 0 and curve[-1][0] == 512 and len(curve) == len(lines) >= 2
    assert all(0.0 <= rate <= 1.0 and rate * 16 == round(rate * 16) for _, rate in curve)
    episodes = list(model.ep_info_buffer)  # SB3's monitor saw whole curriculum episodes
    assert episodes and all(0 <= e["r"] <= 2 and 1 <= e["l"] <= 20 for e in episodes)


def test_an_element_is_named_by_whole_words_only():
    from mobileintent_gym.phone.elements import ScreenElement
    from mobileintent_gym.wrappers.element_features import slot_features

    def named(texts, instruction):
        element = ScreenElement(kind="tab", texts=texts, point=(5, 5), bounds=(0, 0, 10, 10),
                                field=False, focused=False)
        return slot_features(element, instruction)[flag("named")] == 1

    assert not named(("Me",), "Ask Li Wei whether she will come to the reunion")
    assert named(("Me",), "Open Me and then settings")
    assert named(("Li Wei",), "In Chat, reply to li wei.")
    assert not named(("Go",), "Reply to Gordon")
    assert not named(("a",), "Play a song by Ana")  # one letter names nothing (a key)
    assert named(("Ana",), "Play a song by Ana")


def test_the_field_and_focused_flags_are_in_their_slots():
    from mobileintent_gym.phone.elements import ScreenElement
    from mobileintent_gym.wrappers.element_features import slot_features

    out = slot_features(ScreenElement("input", ("Message",), (5, 5), (0, 0, 10, 10),
                                      field=True, focused=False), "Reply")
    assert out[flag("field")] == 1.0 and out[flag("focused")] == 0.0


def test_a_rows_menu_button_is_its_own_element_and_not_part_of_the_rows_texts():
    from mobileintent_gym.phone import SimPhone

    phone = SimPhone(540, 1200)
    phone.open("music", "music/library/liked")
    elements, _ = read_screen(phone.hierarchy())
    rows = [e for e in elements if e.kind == "track"]
    buttons = [e for e in elements if e.kind == "more"]
    assert rows and buttons
    assert not set(buttons[0].texts) & set(rows[0].texts)


@pytest.mark.parametrize("missing", [("torch",),
                                     ("stable_baselines3", "stable_baselines3.common.policies")])
def test_the_element_policy_without_the_rl_extra_names_it(missing, monkeypatch):
    # Blocked in sys.modules (None: what importing a package that is not installed
    # raises). The module imported them bare: a ModuleNotFoundError naming no extra.
    from mobileintent_gym.errors import DependencyNotInstalled

    for name in missing:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "mobileintent_gym.rl.element_policy", raising=False)
    with pytest.raises(DependencyNotInstalled, match=rf"'{missing[-1]}' is not installed; run: "
                                                     r"pip install 'mobileintent-gym\[rl\]'"):
        importlib.import_module("mobileintent_gym.rl.element_policy")


def test_the_instructions_words_are_read_whatever_their_case():
    # The same words in another case hashed to other buckets: "Open" and "open" were two
    # words to the policy.
    import dataclasses

    env = wrapped()
    try:
        obs, _ = env.reset(seed=0, options={"user": "demo-ana",
                                            "task": "G-WCT-02:common:explicit"})
        base = env.unwrapped
        said = base.task.instruction
        assert said != said.casefold()  # it has capitals
        words = []
        for instruction in (said.upper(), said.casefold()):
            base.task = dataclasses.replace(base.task, instruction=instruction)
            words.append(env.observation(None)[-WORD_BUCKETS:])
    finally:
        env.close()
    assert all(np.array_equal(w, obs[-WORD_BUCKETS:]) for w in words)
