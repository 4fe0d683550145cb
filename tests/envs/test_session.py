"""Act2Intent-Session: a day of intentions on one phone, with Execute's judging."""

import warnings
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.actions import Action
from mobileintent_gym.agents import OracleAgent, RandomAgent
from mobileintent_gym.agents.guided import GuidanceAgent
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone.query import find_all

USERS = ["demo-ana"]


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Session-v0", users=USERS, history_days=5, play_days=2,
                   observation=("instruction",), guidance=True)
    yield env
    env.close()


def _play(env, agent, seed=0, options=None):
    obs, info = env.reset(seed=seed, options=options)
    infos, total, done = [info], 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        infos.append(info)
        total, done = total + reward, terminated or truncated
    return total, infos


def test_the_env_passes_the_gymnasium_checker():
    env = gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=USERS,
                   history_days=5, play_days=2)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs["screenshot"].shape == (1200, 540, 3)
    env.close()


def test_the_oracle_carries_out_every_intention_of_the_day(env):
    total, infos = _play(env, OracleAgent(env))
    assert len(infos) > len(env.unwrapped.segments) + 1
    last = infos[-1]
    segments = env.unwrapped.segments
    assert last["segment_success"] == (True,) * len(segments) == (True,) * last["segments"]
    finished = [i["finished"] for i in infos if "finished" in i]
    assert [f["segment"] for f in finished] == list(range(len(segments)))
    assert [f["task"] for f in finished] == [s.task for s in segments]
    assert total == sum(len(f["subgoal_rewards"]) for f in finished)  # every subgoal earned


def test_the_oracle_plays_a_song_the_phone_is_still_playing():
    # bruno's day 4 asks to play the song that earlier intentions left playing: the tap
    # changed nothing and the task could not succeed (a long press on the row did).
    env = gym.make("Act2Intent-Session-v0", users=["bruno"], play_days=6,
                   observation=("instruction",))
    _, infos = _play(env, OracleAgent(env), options={"user": "bruno", "day": 4})
    env.close()
    finished = [i["finished"] for i in infos if "finished" in i]
    played = [f for f in finished if f["task"].startswith("G-SPT-02")]
    assert played and all(f["success"] for f in finished)


def test_info_and_instruction_follow_the_current_intention(env):
    obs, info = env.reset(seed=0)
    segment = env.unwrapped.segments[0]
    assert info["segment"] == 0 and info["intention"] == segment.intention
    assert info["event_class"] == segment.event and info["task"] == segment.task
    assert obs["instruction"] == info["instruction"] and info["user"] == USERS[0]
    obs, _, _, _, info = env.step(Action.complete())  # give the first one up
    assert info["finished"]["success"] is False and info["segment"] == 1
    assert info["segment_success"] == (False,)
    assert info["task"] == env.unwrapped.segments[1].task
    assert env.unwrapped.device.clock.startswith(
        env.unwrapped.segments[1].time.strftime("%Y-%m-%d %H:%M"))


def _replies(device):
    chat = device.state.apps["chat"]
    return sum(m.text == "Understood" for c in chat.chats for m in c.messages)


def test_the_phone_keeps_what_earlier_intentions_did(env):
    """Replies sent in earlier intentions are still there when later ones start."""
    # Greta's second day has two replies among its intentions (checked below: sent == 2).
    obs, info = env.reset(seed=0, options={"user": "greta", "day": 1})
    oracle, device = OracleAgent(env), env.unwrapped.device
    counts, sent, done = [_replies(device)], 0, False
    while not done:
        obs, _, done, _, info = env.step(oracle.act(obs, info))
        if "finished" in info:
            sent += info["finished"]["task"].startswith("G-WCT-02")
            counts.append(_replies(device))  # the next intention has started (or the day ended)
    assert sent == 2 and counts == sorted(counts) and counts[-1] - counts[0] == sent
    device.open("chat")  # and a user sees the last one in the chat list
    assert "Understood" in [n.text for n in find_all(device.hierarchy())]


def test_guidance_is_the_most_similar_past_intention_of_the_same_class(env):
    obs, info = env.reset(seed=0)
    past = [s for s in env.unwrapped._past if s.event == info["event_class"]]
    assert past and obs["guidance"]
    chosen = [s for s in past if obs["guidance"] == "\n".join(
        f"{st.action} | {st.description}" for st in s.steps)]
    assert chosen and any(s.task == info["task"] for s in chosen) == any(
        s.task == info["task"] for s in past)


class _LongRows:
    """Rows pointing the way the text's letters count, but as long as the text's length
    squared: a raw dot product would pick the longest past intention."""

    name = "long-rows"

    def encode(self, texts):
        rows = [[t.count(c) + 1.0 for c in "aeiou"] for t in texts]
        return np.array([np.array(r) / np.linalg.norm(r) * len(t) ** 2
                         for r, t in zip(rows, texts, strict=True)])


def test_guidance_is_chosen_by_cosine_whatever_the_length_of_the_encoders_rows():
    from mobileintent_gym.users.encoders import unit_rows

    env = gym.make("Act2Intent-Session-v0", users=USERS, history_days=5, play_days=1,
                   observation=("instruction",), guidance=True, encoder=_LongRows()).unwrapped
    checked = 0
    for seed in range(4):
        env.reset(seed=seed)
        segment = env.segments[env._index]
        same = [p for p in env._past if p.event == segment.event]
        if len(same) < 2:
            continue
        rows = unit_rows(_LongRows().encode([segment.intention, *(p.intention for p in same)]))
        scores = rows[1:] @ rows[0]
        assert env._similar(segment) is same[np.flatnonzero(scores == scores.max())[-1]]
        checked += 1
    assert checked
    env.close()


def test_baselines_separate_on_completed_intentions(env):
    done = {}
    for name, agent in (("random", RandomAgent(env, 0)), ("guidance", GuidanceAgent(env)),
                        ("oracle", OracleAgent(env))):
        _, infos = _play(env, agent, seed=0)
        done[name] = np.mean(infos[-1]["segment_success"])
    assert done["random"] < done["guidance"] < done["oracle"] == 1.0


def test_step_before_reset_and_bad_options_raise():
    env = gym.make("Act2Intent-Session-v0", users=USERS, history_days=5, play_days=2,
                   observation=("instruction",))
    with pytest.raises(MobileIntentError, match="reset"):
        env.unwrapped.step(Action.complete())
    with pytest.raises(MobileIntentError, match="unknown reset options"):
        env.reset(options={"task": "x"})
    with pytest.raises(MobileIntentError, match=r"reset option day must be in 0\.\."):
        env.reset(options={"day": 9})
    env.close()


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"history_days": -1}, "history_days=-1"), ({"play_days": 2.0}, "play_days=2.0"),
    # Anything not a text was taken for a Device: AttributeError on its width.
    ({"device": None}, "device must be a Device or a config text such as 'sim', got "
                       "NoneType None"),
    ({"device": b"sim"}, "device must be a Device .* got bytes b'sim'"),
])
def test_bad_counts_are_named_before_a_device_opens(kwargs, named):
    with pytest.raises(MobileIntentError, match=named):
        gym.make("Act2Intent-Session-v0", users=USERS, **kwargs)


def test_a_day_carried_on_one_phone_is_no_cause_for_warnings():
    env = gym.make("Act2Intent-Session-v0", users=USERS, history_days=5, play_days=2,
                   observation=("instruction",))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # kept content: a day's phone keeps it on purpose
        for seed in (0, 1):
            _play(env, OracleAgent(env), seed=seed)
    env.close()


def test_of_equally_similar_past_intentions_the_latest_guides(env):
    # Habits repeat an intention word for word, and the oldest run of it guided: replay
    # did 40.8 % of the README's intentions, 51.3 % with the latest.
    env.reset(seed=0)
    session = env.unwrapped
    texts = Counter(p.intention for p in session._past)
    repeated, count = texts.most_common(1)[0]
    runs = [p for p in session._past if p.intention == repeated]
    assert count > 1 and session._similar(runs[0]) is runs[-1]


def test_an_interrupted_past_intention_guides_with_the_steps_of_both_parts():
    # Only its second part's steps were the guidance: those before the interruption were
    # missing (replay did 9 of 41 such intentions, 18 with them).
    from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

    day = cached_sessions(USERS[0], 1, 0, GeneratorConfig(interleave=1.0))[0]
    firsts = {s.task: s for s in day.segments if s.part == 1}
    whole = {s.task: s for s in day.whole()}
    assert firsts and len(day.whole()) == len(day.done())
    for task, first in firsts.items():
        second = next(s for s in day.done() if s.task == task)
        assert whole[task].steps == first.steps + second.steps
        assert whole[task].intention == second.intention and whole[task].part == 2


def test_the_guidance_of_a_new_episode_starts_afresh():
    # A day of one intention left actions queued, and the next episode, at segment 0
    # again, replayed them.
    agent = GuidanceAgent(None)
    first = "CLICK[10,10] | In Chat, open it\nCLICK[20,20] | In Chat, open more"
    assert agent.act({"guidance": first}, {"segment": 0, "steps": 0}) == Action.click(10, 10)
    again = "CLICK[500,500] | In Chat, open another"
    assert agent.act({"guidance": again}, {"segment": 0, "steps": 0}) == Action.click(500, 500)


@pytest.mark.parametrize(("guidance", "segment", "expected"), [
    # "TYPE[Tom | Jerry] | …" was cut at the first " | ": InvalidActionError out of act().
    ("PRESS[HOME] | On the home screen, go home\n"
     "CLICK[10,20] | On the home screen, open Chat\n"
     "TYPE[Tom | Jerry] | Type the names | both\n"
     "PRESS[ENTER] | Send", 0, [Action.type_text("Tom | Jerry"), Action.press("ENTER")]),
    # The env opens the app itself: a HOME press of the guidance would leave it.
    ("CLICK[10,20] | On the home screen, open Chat\n"
     "CLICK[30,40] | In Chat, open Li Wei\n"
     "PRESS[HOME] | In Chat, go home\n"
     "PRESS[BACK] | In Chat, go back", 3, [Action.click(30, 40), Action.press("BACK")]),
], ids=["bar-in-typed-text", "home-inside-an-app"])
def test_guidance_is_replayed_whole_and_inside_the_app(guidance, segment, expected):
    agent = GuidanceAgent(None)
    played = [agent.act({"guidance": guidance}, {"segment": segment}) for _ in range(3)]
    assert played == [*expected, Action.complete()]


def test_sessions_are_generated_at_the_devices_size_and_another_size_is_refused():
    # A 540x1200 phone got sessions generated at 1080x2400: the guidance's clicks fell off
    # the screen (16 of 42 steps invalid for the guidance replay).
    from mobileintent_gym.intents.generator import GeneratorConfig

    env = gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=USERS,
                   history_days=2, play_days=1, observation=("instruction",), guidance=True)
    try:
        assert (env.unwrapped.config.width, env.unwrapped.config.height) == (540, 1200)
        obs, info = env.reset(seed=0)
        agent, invalid, done = GuidanceAgent(env), 0, False
        while not done:
            obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
            invalid += bool(info.get("invalid_action"))
            done = terminated or truncated
        assert invalid == 0
    finally:
        env.close()
    with pytest.raises(MobileIntentError, match="the device is 540x1200, the sessions are "
                                                "generated at 1080x2400"):
        gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=USERS,
                 config=GeneratorConfig())


def test_an_interrupted_intention_is_carried_out_once_where_it_was_finished():
    # Both parts ran as whole tasks, their rewards and verdicts counted twice (16
    # intentions of 11 on a day of the test users).
    from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

    config = GeneratorConfig(interleave=0.5)
    env = gym.make("Act2Intent-Session-v0", users=USERS, history_days=2, play_days=1,
                   observation=("instruction",), config=config)
    total, infos = _play(env, OracleAgent(env))
    day = cached_sessions(USERS[0], 3, 0, config)[2]
    assert any(s.part == 1 for s in day.segments)  # the day has an interrupted intention
    assert env.unwrapped.segments == day.done() and infos[0]["segments"] == len(day.done())
    finished = [i["finished"] for i in infos if "finished" in i]
    assert [f["task"] for f in finished] == [s.task for s in day.done()]
    assert total == sum(sum(f["subgoal_rewards"]) for f in finished)
    env.close()
