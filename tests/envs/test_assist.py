"""Act2Intent-Assist: the simulated user lives their day; proposals, hand-overs, scores."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.actions import Action
from mobileintent_gym.agents.assist import ASSISTANTS
from mobileintent_gym.apps import registry
from mobileintent_gym.envs.assist import EXECUTE, WATCH
from mobileintent_gym.envs.proposals import NO_ACTION, answer
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import replay
from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions
from mobileintent_gym.phone import SimPhone
from tests.helpers import COPIES, assert_copy_goes_on, frame_bounds_bytes, history

USERS = ["demo-ana"]
SMALL = GeneratorConfig(width=540, height=1200, noise=0.8)
DAY = {"user": USERS[0], "day": 0}


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Assist-v0", users=USERS, config=SMALL)
    yield env
    env.close()


def _play(env, name, options=DAY):
    obs, info = env.reset(seed=0, options=options)
    agent, done, infos, total = ASSISTANTS[name](env, 0), False, [], 0.0
    while not done:
        obs, reward, done, truncated, info = env.step(agent.act(obs, info))
        infos.append(info)
        total += reward
        assert not truncated
    return infos, total


def _session():
    return cached_sessions(USERS[0], 5, 0, SMALL)[3]  # the first played day


def test_the_env_passes_the_gymnasium_checker():
    env = gym.make("Act2Intent-Assist-v0", users=USERS, config=SMALL, hierarchy=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs["screenshot"].shape == (1200, 540, 3) and obs["mode"] == WATCH
    assert obs["hierarchy"].startswith("<?xml") and obs["instruction"] == ""
    assert env.spec.max_episode_steps == 4000
    env.close()


def test_left_alone_the_user_lives_the_generated_day_screen_by_screen(env):
    obs, _ = env.reset(seed=0, options=DAY)
    session, phone = _session(), SimPhone(540, 1200)
    shown, done, actions = [obs["screenshot"]], False, []
    while not done:
        obs, reward, done, _, info = env.step(NO_ACTION)
        assert reward == 0.0 and "accepted" not in info and info["mode"] == WATCH
        actions.append(info["user_action"])
        shown.append(obs["screenshot"])
    steps = [step for s in session.segments for step in s.steps]
    assert actions == [step.action for step in steps]
    for n, _ in enumerate(replay(session, phone)):
        assert np.array_equal(shown[n], phone.screenshot()), n
    phone.close()
    episode = info["day_scores"]
    assert episode["by_hand_steps"] == episode["user_steps"] == len(steps)
    assert (episode["proposals"], episode["steps_saved"], episode["agent_steps"]) == (0, 0, 0)
    assert episode["intentions"] == episode["intentions_done"] == len(session.intentions())


def test_the_app_and_context_say_where_and_when_the_user_is(env):
    obs, _ = env.reset(seed=0, options=DAY)
    first = _session().segments[0]
    assert obs["app"] == "" and obs["context"] == f"{first.time:%Y-%m-%d %H:%M %A}, " \
                                                  f"{first.context.scene}"
    while obs["app"] == "":
        obs, *_ = env.step(NO_ACTION)
    assert obs["app"] in {bundle.app.label for bundle in registry.bundles()}


def test_an_accepted_proposal_hands_over_the_phone_and_the_user_goes_on_from_there(env):
    obs, info = env.reset(seed=0, options=DAY)
    while env.unwrapped.truth() is None:
        obs, _, _, _, info = env.step(NO_ACTION)
    day, intention = env.unwrapped.day, env.unwrapped.truth()
    segment = day.segment
    obs, reward, _, _, info = env.step(answer(intention))
    assert (reward, info["accepted"], info["user_action"], obs["mode"]) == (
        0.0, True, None, EXECUTE)
    assert obs["instruction"] == env.unwrapped.task.instruction
    assert env.unwrapped.task.id == segment.task
    agent, rewards = ASSISTANTS["oracle"](env, 0), []
    while obs["mode"] == EXECUTE:
        obs, reward, _, _, info = env.step(agent.act(obs, info))
        rewards.append(reward)
    assert info["success"] and sum(rewards) == len(info["subgoal_rewards"])
    assert day.outcomes[-1].executed is True and day.outcomes[-1].taken == 0


def test_a_proposal_accepted_after_the_users_detour_slip_can_still_be_carried_out(env):
    # A detour tap on "Saved in Liked Songs" (Add to playlist, step 9) un-liked the very song
    # the user was adding, and the user went on: from then on a right proposal could not be
    # done (the song had left Liked Songs) by the oracle, nor by the user finishing by hand
    # (70 actions). The user now taps it back (step 10); handed over after that, it works.
    task = "G-SPT-01:personal:explicit"
    obs, info = env.reset(seed=0, options={"user": USERS[0], "day": 1})
    unwrapped = env.unwrapped
    while not (unwrapped.truth() is not None and unwrapped.day.segment.task == task
               and unwrapped.day._next == 11):
        obs, _, _, _, info = env.step(NO_ACTION)
    music = unwrapped.device.state.apps["music"]
    assert "Owambe" in [music.tracks[t].title for t in music.liked]
    obs, _, _, _, info = env.step(answer(unwrapped.truth()))
    agent = ASSISTANTS["oracle"](env, 0)
    while obs["mode"] == EXECUTE:
        obs, _, _, _, info = env.step(agent.act(obs, info))
    assert info["success"]


def _same(event, recorded):
    fields = ("route_before", "route_after", "hit", "visible", "visible_after", "typed",
              "effect", "record", "record_after", "clock")
    return [getattr(event, f) for f in fields] == [getattr(recorded, f) for f in fields]


@pytest.mark.parametrize("assistant", ["history-random", "oracle"])
def test_the_user_goes_on_from_the_screen_and_data_the_assistant_left(env, assistant):
    """Every user action, before and after hand-overs, does on the shown phone exactly
    what it did when the user's life planned it (the same screen, element and effect)."""
    obs, info = env.reset(seed=0, options=DAY)
    unwrapped = env.unwrapped
    agent, day, done, checked = ASSISTANTS[assistant](env, 0), unwrapped.day, False, 0
    taken = []
    act = unwrapped.device.act

    def recording(action):
        result = act(action)
        taken.append(result.event)
        return result

    unwrapped.device.act = recording
    while not done:
        planned = day.next_step if obs["mode"] == WATCH else None
        obs, _, done, _, info = env.step(agent.act(obs, info))
        if info["user_action"] is not None:
            assert _same(taken[-1], planned.event), planned
            checked += 1
    unwrapped.device.act = act
    episode = info["day_scores"]
    assert checked == episode["user_steps"] and episode["accepted"] > 0


def test_a_rejected_proposal_costs_one_and_the_user_acts_anyway(env):
    env.reset(seed=0, options=DAY)
    while env.unwrapped.truth() is not None:
        env.step(NO_ACTION)
    _, reward, _, _, info = env.step(answer("In Chat, open the conversation with nobody."))
    assert (reward, info["accepted"]) == (-1.0, False) and info["user_action"] is not None


def test_after_a_failed_execution_the_user_finishes_by_hand_and_declines_it(env):
    obs, info = env.reset(seed=0, options=DAY)
    while env.unwrapped.truth() is None:
        obs, _, _, _, info = env.step(NO_ACTION)
    intention, day = env.unwrapped.truth(), env.unwrapped.day
    number = day.number
    env.step(answer(intention))
    obs, reward, _, _, info = env.step(Action.complete())  # the assistant gives up at once
    assert info["success"] is False and obs["mode"] == WATCH
    assert env.unwrapped.truth() is None  # finishing by hand: any proposal is rejected
    _, reward, _, _, info = env.step(answer(intention))
    assert (reward, info["accepted"]) == (-1.0, False)
    while len(day.outcomes) <= number:
        env.step(NO_ACTION)
    outcome = day.outcomes[number]  # outcomes come in the order of the segments
    assert outcome.executed is False and outcome.done and outcome.taken > 0


def test_the_baselines_order_on_steps_saved_and_false_alarms(env):
    scores, totals = {}, {}
    for name in ASSISTANTS:
        infos, totals[name] = _play(env, name)
        scores[name] = infos[-1]["day_scores"]
    never, oracle = scores["never"], scores["oracle"]
    smart, blind = scores["history-oracle"], scores["history-random"]
    assert never["steps_saved"] == 0 and never["false_alarm_rate"] is None
    assert oracle["rejected"] == 0 and oracle["accepted"] == oracle["intentions"]
    assert oracle["steps_saved"] > smart["steps_saved"] > blind["steps_saved"]
    assert smart["rejected"] > 0 and blind["proposals"] > 0
    assert smart["accepted_success"] == 1.0 > blind["accepted_success"]
    assert totals["history-oracle"] > totals["history-random"]
    assert totals["never"] == 0.0


def test_no_warning_and_bad_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make("Act2Intent-Assist-v0", users=USERS, config=SMALL)
        _play(env, "oracle")
    with pytest.raises(MobileIntentError, match="unknown reset options"):
        env.reset(options={"task": "x"})
    with pytest.raises(MobileIntentError, match="reset"):
        env.step(NO_ACTION)  # the day is over
    env.close()
    with pytest.raises(MobileIntentError, match=r"interleave=0\.3"):
        gym.make("Act2Intent-Assist-v0", config=GeneratorConfig(interleave=0.3))
    with pytest.raises(MobileIntentError, match="history_days=0: must be integers >= 1"):
        gym.make("Act2Intent-Assist-v0", history_days=0)
    # inf was taken: one rejected proposal made the return -inf, and its means NaN.
    for cost in (-1, float("inf"), float("nan")):
        with pytest.raises(MobileIntentError, match="false_alarm_cost must be a finite number"):
            gym.make("Act2Intent-Assist-v0", false_alarm_cost=cost)


def test_the_screenshot_space_bounds_take_no_memory(env):
    # A plain Box would hold four arrays of the frame's shape (31 MB at 1080x2400).
    screenshot = env.observation_space["screenshot"]
    assert frame_bounds_bytes(screenshot) == 4 * screenshot.shape[1] * 3
    assert screenshot.contains(np.zeros(screenshot.shape, np.uint8))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_history_proposer_never_proposes_an_accepted_intention_again(env, seed):
    # The acceptance's step is the executor's to answer; the proposer hears it all the same.
    obs, info = env.reset(seed=seed, options={"user": USERS[0]})
    agent, done, accepted, again = ASSISTANTS["history-oracle"](env, 0), False, set(), []
    while not done:
        obs, _, done, _, info = env.step(agent.act(obs, info))
        if info.get("accepted"):
            accepted.add(info["proposal"])
        elif info["proposal"] in accepted:
            again.append(info["proposal"])
    assert accepted and again == []


@pytest.mark.parametrize("copy_env", COPIES)
def test_a_copy_taken_mid_day_goes_on_as_the_original(copy_env):
    # The day being lived was a generator: any copy after reset() raised "cannot pickle
    # 'generator' object".
    env = gym.make("Act2Intent-Assist-v0", users=USERS, config=SMALL)
    obs, info = env.reset(seed=0, options=DAY)
    agent = ASSISTANTS["history-oracle"](env, 0)
    for _ in range(12):
        obs, *_, info = env.step(agent.act(obs, info))
    assert_copy_goes_on(env, copy_env, agent, obs, info, 12)
    env.close()


def test_the_history_proposer_proposes_the_apps_own_habit_once_per_visit():
    from mobileintent_gym.agents.assist import HistoryProposer

    past = history(
        ("2024-05-01 08:10", "chat", "Reply to Li", "Chatting"),
        ("2024-05-01 08:20", "chat", "Reply to Li", "Chatting"),
        ("2024-05-01 08:30", "music", "Play jazz", "Listen music"))
    proposer = HistoryProposer()

    def seen(app):
        return proposer.act({"app": app, "history": past,
                             "context": "2024-05-02 08:40, at home"}, {})

    assert seen("music") == answer("Play jazz")  # the more frequent chat habit is elsewhere
    assert seen("music") == NO_ACTION  # one proposal per visit of an app
    assert seen("chat") == answer("Reply to Li")
    assert seen("notes") == NO_ACTION  # no habit in that app
