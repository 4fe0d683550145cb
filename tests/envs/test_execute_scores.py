"""What the Execute env scores on the simulated phone, read from the screen an agent sees.

Hand-driven episodes (taps found in the dump, as an agent would) check the scoring rules
end to end: per-subgoal reached flags, SAR over reached subgoals, and that acting on
another record than the target earns no UC reward.
"""

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.touch import ScreenDump
from mobileintent_gym.phone.ui import center

USER = "demo-ana"


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Execute-v0", observation=("hierarchy",), users=[USER])
    yield env
    env.close()


def tap(env, obs, rid, entity=None, avoid=None):
    """Click the first element with ``rid`` (showing ``entity``, or not ``avoid``)."""
    for node in hierarchy.parse(obs["hierarchy"]).walk():
        if rid_suffix(node.resource_id) != rid or not node.clickable:
            continue
        if (entity is None or node.entity == entity) and (avoid is None or node.entity != avoid):
            x, y = center(node.bounds)
            return env.step(f"CLICK[{x},{y}]")
    raise AssertionError(f"no {rid!r} element on {env.unwrapped.device.route()}")


def test_sending_understood_in_another_conversation_earns_nothing(env):
    obs, info = env.reset(seed=0, options={"user": USER, "task": "G-WCT-02:personal:explicit"})
    target = info["target"]
    obs, *_, info = tap(env, obs, "chat", avoid=target)
    # The screen shows another conversation: its toolbar is about another record.
    assert ScreenDump(obs["hierarchy"]).record not in (None, target)
    obs, *_ = tap(env, obs, "input")
    obs, *_ = env.step("TYPE[Understood]")
    obs, reward, terminated, _, info = tap(env, obs, "send")
    assert reward == 0.0
    assert "Understood" in [n.text for n in hierarchy.parse(obs["hierarchy"]).walk()]
    assert info["subgoal_rewards"] == (0.0, 0.0) and not info["success"] and not terminated
    assert info["subgoals_reached"] == (True, True)
    assert info["sar"] == 0.0 and info["sar_all_subgoals"] == 0.0


def test_sar_in_info_divides_by_the_reached_subgoals(env):
    obs, info = env.reset(seed=0, options={"user": USER, "task": "G-SPT-01:common:explicit"})
    assert info["sar"] is None and info["subgoals_reached"] == (False,) * 6  # nothing yet
    obs, *_, info = tap(env, obs, "nav_your_library")
    # The library is on screen, but "open Liked Songs" is reached only once an action is
    # taken there (its entry screen observed before an action).
    assert info["subgoals_reached"] == (True, False, False, False, False, False)
    assert info["sar"] == 1.0 and info["sar_all_subgoals"] == pytest.approx(1 / 6)
    obs, *_, info = tap(env, obs, "liked_songs")
    obs, *_, info = tap(env, obs, "more", avoid=info["target"])  # another track's menu
    # The menu shown is about the other track, so "open the track's menu" earns nothing.
    assert ScreenDump(obs["hierarchy"]).record not in (None, info["target"])
    obs, *_, info = tap(env, obs, "add_to_playlist")
    assert info["subgoal_rewards"][:4] == (1.0, 1.0, 0.0, 1.0)
    assert info["subgoals_reached"][:4] == (True,) * 4
    assert info["sar"] == pytest.approx(3 / 4)


def test_a_screen_is_about_the_record_its_header_shows(env):
    obs, info = env.reset(seed=0, options={"user": USER, "task": "G-SPT-01:personal:explicit"})
    assert ScreenDump(obs["hierarchy"]).record is None  # the home tab is about no record
    obs, *_ = tap(env, obs, "nav_your_library")
    obs, *_ = tap(env, obs, "liked_songs")
    obs, *_, info = tap(env, obs, "more", entity=info["target"])
    event = info["event"]
    # The menu sheet's header shows the track; SimPhone logs what any dump of it shows.
    assert event.record_after == info["target"] == ScreenDump(obs["hierarchy"]).record
    assert event.record is None  # the Liked Songs list's toolbar names no single record
