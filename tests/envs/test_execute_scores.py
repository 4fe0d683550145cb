"""What the Execute env scores on the simulated phone, read from the screen an agent sees.

Hand-driven episodes (taps found in the dump, as an agent would) check the scoring rules
end to end: per-subgoal reached flags, SAR over reached subgoals, and that acting on
another record than the target earns no UC reward.
"""

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector.utils import concatenate, create_empty_array

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.actions import Action, ActionType, action_to_dict, parse_action
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.touch import ScreenDump
from mobileintent_gym.phone.ui import center
from mobileintent_gym.tasks import Oracle

USER = "demo-ana"


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Execute-v0", observation=("hierarchy",), users=[USER])
    yield env
    env.close()


def click(dump, rid, entity=None, avoid=None):
    """The click on the first element with ``rid`` (showing ``entity``, or not ``avoid``)."""
    for node in hierarchy.parse(dump).walk():
        if rid_suffix(node.resource_id) != rid or not node.clickable:
            continue
        if (entity is None or node.entity == entity) and (avoid is None or node.entity != avoid):
            x, y = center(node.bounds)
            return f"CLICK[{x},{y}]"
    raise AssertionError(f"no {rid!r} element in the dump")


def tap(env, obs, rid, entity=None, avoid=None):
    """Step ``env`` with the click on ``rid`` (see ``click``)."""
    return env.step(click(obs["hierarchy"], rid, entity, avoid))


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
    assert math.isnan(info["sar"]) and info["subgoals_reached"] == (False,) * 6  # nothing yet
    assert "target_exposed" not in info  # no other track picked yet
    obs, *_, info = tap(env, obs, "nav_your_library")
    # The library is on screen, but "open Liked Songs" is reached only once an action is
    # taken there (its entry screen observed before an action).
    assert info["subgoals_reached"] == (True, False, False, False, False, False)
    assert info["sar"] == 1.0 and info["sar_all_subgoals"] == pytest.approx(1 / 6)
    obs, *_, info = tap(env, obs, "liked_songs")
    obs, *_, info = tap(env, obs, "more", avoid=info["target"])  # another track's menu
    assert info["target_exposed"] is False  # the target was not on screen when it was picked
    # The menu shown is about the other track, so "open the track's menu" earns nothing.
    assert ScreenDump(obs["hierarchy"]).record not in (None, info["target"])
    obs, *_, info = tap(env, obs, "add_to_playlist")
    assert info["subgoal_rewards"][:4] == (1.0, 1.0, 0.0, 1.0)
    assert info["subgoals_reached"][:4] == (True,) * 4
    assert info["sar"] == pytest.approx(3 / 4)


def test_the_new_playlist_dialog_is_about_the_track_it_adds(env):
    # The dialog is about the track it adds: reached for another track (from Recently
    # played) it earns no subgoal of the target's (UC), while the navigation subgoals
    # (UA) keep the study's route rule and count the screens reached.
    obs, info = env.reset(seed=0, options={"user": USER, "task": "G-SPT-01:personal:explicit"})
    obs, *_ = tap(env, obs, "nav_your_library")
    obs, *_ = tap(env, obs, "recently_played")
    obs, *_, info = tap(env, obs, "more", avoid=info["target"])
    other = info["event"].record_after
    obs, *_ = tap(env, obs, "add_to_playlist")
    obs, *_, info = tap(env, obs, "new_playlist")
    assert info["event"].record_after == other == ScreenDump(obs["hierarchy"]).record
    assert other != info["target"]
    assert info["subgoal_rewards"] == (1.0, 1.0, 0.0, 1.0, 1.0, 0.0)


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


def test_vector_envs_batch_unknown_exposure_and_undefined_sar_faithfully():
    # Gymnasium's batching types a key by the first sub-env's value: a None after a bool
    # read as False under a True mask, and a None sar made an object array.
    task = {"user": USER, "task": "G-SPT-01:common:explicit"}
    envs = gym.vector.SyncVectorEnv(
        [lambda: gym.make("Act2Intent-Execute-v0", observation=("hierarchy",),
                          users=[USER])] * 2)
    try:
        obs, info = envs.reset(seed=0, options=task)
        assert info["sar"].dtype == np.float64 and np.isnan(info["sar"]).all()
        for rid in ("nav_your_library", "liked_songs"):
            obs, *_, info = envs.step(batched(envs, [click(d, rid) for d in obs["hierarchy"]]))
        target = info["target"][0]
        obs, *_, info = envs.step(batched(envs, [
            click(obs["hierarchy"][0], "more", avoid=target),
            "swipe[up]"]))
        # Sub-env 0 picked another track (the target not on screen); sub-env 1 none yet.
        assert info["_target_exposed"].tolist() == [True, False]
        assert not info["target_exposed"][0]
        assert info["sar"].dtype == np.float64
        assert info["sar"].tolist() == [sum(r) / sum(seen) for r, seen in zip(
            info["subgoal_rewards"], info["subgoals_reached"], strict=True)]
    finally:
        envs.close()


def batched(envs, actions):
    """Action strings as the vector env's batched action."""
    single = envs.single_action_space
    return concatenate(single, [action_to_dict(parse_action(a)) for a in actions],
                       create_empty_array(single, len(actions)))


@pytest.mark.parametrize("task_id", ["G-SPT-01", "G-WCT-02", "G-ALI-03", "G-RDT-02"])
def test_a_draft_with_spaces_around_it_is_sent_as_the_text(env, task_id):
    # The apps trim what they send or save, so " Understood " sends "Understood".
    obs, info = env.reset(seed=0, options={"user": USER, "task": f"{task_id}:common:explicit"})
    oracle, base = Oracle(env.unwrapped.task), env.unwrapped
    while (action := oracle.act(base.device.route(), obs["hierarchy"])).type is not ActionType.TYPE:
        obs, *_ = env.step(action)
    env.step(Action.type_text(f" {action.text} "))
    _, reward, terminated, _, info = env.step("PRESS[ENTER]")
    assert info["success"] and terminated and reward == 1.0
    assert all(r == 1.0 for r in info["subgoal_rewards"])


def test_a_long_click_on_the_mini_player_does_not_open_the_tracks_menu(env):
    obs, info = env.reset(seed=0, options={"user": USER, "task": "G-SPT-01:common:explicit"})
    target = info["target"]
    obs, *_ = tap(env, obs, "nav_your_library")
    obs, *_ = tap(env, obs, "liked_songs")
    while target not in {n.entity for n in hierarchy.parse(obs["hierarchy"]).walk()}:
        obs, *_ = env.step("SWIPE[UP]")
    obs, *_ = tap(env, obs, "track", target)  # plays it: the mini player now shows it
    obs, reward, *_, info = env.step(click(obs["hierarchy"], "mini_player", target).replace(
        "CLICK", "LONG_CLICK"))
    assert env.unwrapped.device.route() == "music/player"
    assert reward == 0.0 and info["subgoal_rewards"][2] == 0.0
    env.step("PRESS[BACK]")
    obs, reward, *_, info = env.step(click(env.unwrapped.device.hierarchy(), "track", target)
                                     .replace("CLICK", "LONG_CLICK"))
    assert env.unwrapped.device.route() == "music/track_menu"
    assert reward == 1.0 and info["subgoal_rewards"][2] == 1.0


def test_the_chevron_that_opens_your_space_is_not_the_liked_list(env):
    obs, _ = env.reset(seed=0, options={"user": USER, "task": "G-BIL-03:common:explicit"})
    obs, *_ = tap(env, obs, "nav_me")
    obs, *_ = tap(env, obs, "space")
    obs, *_ = env.step("PRESS[BACK]")  # the liked list's entry screen was seen
    obs, reward, *_, info = tap(env, obs, "space_more")
    assert env.unwrapped.device.route() == "video/space"
    assert reward == 0.0 and info["subgoal_rewards"] == (1.0, 1.0, 0.0, 0.0)
    obs, reward, *_, info = tap(env, obs, "liked_more")
    assert env.unwrapped.device.route() == "video/space/liked"
    assert reward == 1.0 and info["subgoal_rewards"] == (1.0, 1.0, 1.0, 0.0)


def test_a_reply_after_a_wrong_comment_still_succeeds_though_the_thread_scrolled():
    # Sending a comment scrolls the thread to its end: the post's title leaves the screen,
    # the toolbar that names the post stays.
    env = gym.make("Act2Intent-Execute-v0", observation=("hierarchy",), users=["dev"])
    obs, info = env.reset(seed=0, options={"user": "dev", "task": "G-RDT-02:personal:explicit"})
    oracle = Oracle(env.unwrapped.task)
    while env.unwrapped.device.route() != "forum/post":
        obs, *_, info = env.step(oracle.act(env.unwrapped.device.route(), obs["hierarchy"]))
    for text in ("Great read", "Thank you"):
        obs, *_ = tap(env, obs, "comment_input")
        obs, *_ = env.step(f"TYPE[{text}]")
        obs, reward, terminated, _, info = tap(env, obs, "submit")
    assert "post_title" not in {rid_suffix(n.resource_id)
                                for n in hierarchy.parse(obs["hierarchy"]).walk()}
    assert info["success"] and terminated and reward == 1.0
    env.close()
