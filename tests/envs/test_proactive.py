"""Act2Intent-Proactive: a noisy stream of screens, per-turn gold, PIRA's scores."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents.proactive import MostFrequentProposer, NeverPropose, OracleProposer
from mobileintent_gym.envs.proposals import answer, parse_proposal
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import replay
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.tasks import TEMPLATES
from tests.helpers import COPIES, assert_copy_goes_on, frame_bounds_bytes, history

USERS = ["demo-ana"]


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, render_mode="rgb_array")
    yield env
    env.close()


def _episode(env, make, seed=0, options=None):
    obs, info = env.reset(seed=seed, options=options)
    agent, done, rewards = make(env), False, []
    while not done:
        obs, reward, done, truncated, info = env.step(agent.act(obs, info))
        rewards.append(reward)
        assert not truncated
    assert info["outcomes"] == tuple(env.unwrapped.outcomes)
    return info["day_scores"], list(zip(info["outcomes"], rewards, strict=True))


def test_a_steps_info_tells_nothing_of_gold_until_the_day_ends(env):
    # Each step's info held the turn's gold, and most turns continue the intention of the
    # one before: an agent proposing the gold it was just told scored S_final 0.36.
    env.reset(seed=1)
    golds, done = [], False
    while not done:
        golds.append(env.unwrapped.truth().intent)
        _, _, done, _, info = env.step("no action")
        if not done:
            assert set(info) == {"malformed"}
    assert info["golds"] == tuple(golds) and any(golds) and None in golds
    assert info["outcomes"] == tuple("tn" if g is None else "fn" for g in golds)


def test_the_env_passes_the_gymnasium_checker():
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, window=4, frame_size=(108, 240),
                   hierarchy=True, candidates=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=2)
    assert obs["frames"].shape == (4, 240, 108, 3) and len(obs["hierarchies"]) == 4
    assert obs["hierarchies"][-1].startswith("<?xml") and obs["hierarchies"][0] == ""
    assert env.spec.max_episode_steps == 4000
    env.close()


def test_the_candidates_say_nothing_of_the_day():
    # They were the history's and the day's intentions: each one not in the history was
    # one of the day's golds (2-3 a day, on every day a reviewer looked at).
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, window=2, frame_size=(108, 240),
                   candidates=True)
    shown, golds = [], set()
    for day in (0, 1):
        obs, _ = env.reset(options={"user": USERS[0], "day": day})
        shown.append(obs["candidates"])
        golds |= {s.intention for s in env.unwrapped.stream.session.segments
                  if not s.is_noise}
    env.close()
    assert shown[0] == shown[1]
    candidates = shown[0].split("\n")
    assert len(candidates) == len(TEMPLATES) * 4 and golds < set(candidates)


def test_each_turn_shows_the_last_n_screens_of_the_replayed_day(env):
    obs, info = env.reset(seed=0, options={"user": USERS[0], "day": 0})
    stream = env.unwrapped.stream
    phone, screens = SimPhone(), []
    for _ in replay(stream.session, phone):
        screens.append(np.asarray(Image.fromarray(phone.screenshot()).resize((216, 480))))
        if len(screens) == 12:
            break
    assert obs["frames"].shape == (10, 480, 216, 3) and not obs["frames"][:9].any()
    assert np.array_equal(obs["frames"][9], screens[0])
    for _ in range(11):
        obs, *_ = env.step("no action")
    assert np.array_equal(obs["frames"], np.stack(screens[2:12]))  # the window slid on
    first = stream.session.segments[0]
    assert obs["context"].startswith(f"{first.time:%Y-%m-%d}")
    assert obs["profile"].startswith("Over 3 days the user had") and info["turns"] == stream.turns
    phone.close()


def test_rgb_array_renders_the_newest_frame_at_the_phones_size(env):
    # The env took no render_mode: gym.make(..., render_mode=...) raised a TypeError.
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        obs, *_ = env.step("no action")
    frame = env.render()
    assert frame.shape == (2400, 1080, 3)
    assert np.array_equal(np.asarray(Image.fromarray(frame).resize((216, 480))),
                          obs["frames"][-1])


def test_gold_and_memory_follow_the_segments_with_a_resumed_intention(env):
    env.reset(seed=0, options={"user": USERS[0], "day": 0})
    stream = env.unwrapped.stream
    segments = stream.session.segments
    assert any(s.part == 2 for s in segments) and any(s.is_noise for s in segments)
    truths = []
    for _ in range(stream.turns):
        truths.append(env.unwrapped.truth())
        env.step("no action")
    assert len(truths) == sum(len(s.steps) for s in segments)  # stride 1: a turn per frame
    turn = 0
    for segment in segments:
        memory = [t.memory for t in truths[turn:turn + len(segment.steps)]]
        intents = {t.intent for t in truths[turn:turn + len(segment.steps)]}
        if segment.is_noise:
            assert intents == {None} and set(memory) == {"IDLE"}
        else:
            first = "RESUME" if segment.part == 2 else "CREATE"
            assert intents == {segment.intention}
            assert memory == [first] + ["UPDATE"] * (len(segment.steps) - 1)
        turn += len(segment.steps)


def test_a_stride_skips_frames_and_gold_is_the_newest_frames_segment():
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, window=3, stride=4,
                   frame_size=(108, 240))
    env.reset(seed=0, options={"user": USERS[0], "day": 0})
    stream = env.unwrapped.stream
    frames = len(stream.labels)
    assert stream.turns == -(-frames // 4)
    assert [stream.last_frame(t) for t in (0, 1, stream.turns - 1)] == [3, 7, frames - 1]
    segments = stream.session.segments
    for turn in range(stream.turns):
        newest = segments[stream.labels[stream.last_frame(turn)]]
        gold = None if newest.is_noise else newest.intention
        assert env.unwrapped.truth().intent == gold
        env.step("no action")
    env.close()


def test_the_oracle_scores_one_and_never_proposing_scores_zero(env):
    oracle, outcomes = _episode(env, OracleProposer, seed=1)
    assert {k: oracle[k] for k in ("precision", "recall", "f1", "fps_norm", "s_final",
                                   "memory_accuracy", "memory_balanced_accuracy", "fp",
                                   "fn")} == {
        "precision": 1.0, "recall": 1.0, "f1": 1.0, "fps_norm": 1.0, "s_final": 1.0,
        "memory_accuracy": 1.0, "memory_balanced_accuracy": 1.0, "fp": 0, "fn": 0}
    assert oracle["memory_given"] == oracle["turns"]
    assert oracle["tp"] == sum(o == ("tp", 1.0) for o in outcomes) > 0
    assert oracle["noise"] == sum(o == ("tn", 0.0) for o in outcomes) > 0
    quiet, _ = _episode(env, lambda e: NeverPropose(), seed=1)
    assert (quiet["tp"], quiet["fp"], quiet["fn"]) == (0, 0, oracle["tp"])
    assert (quiet["recall"], quiet["fps_norm"], quiet["s_final"]) == (0.0, 1.0, 0.0)


def test_always_proposing_falls_into_the_over_proactivity_trap(env):
    eager, outcomes = _episode(env, lambda e: MostFrequentProposer(), seed=1)
    assert eager["fn"] == 0 and eager["recall"] == 1.0 and eager["tp"] > 0
    assert eager["fp"] >= eager["noise"] and eager["fps_norm"] <= 0 and eager["s_final"] <= 0
    assert sum(r for _, r in outcomes) == eager["tp"] - eager["fp"]


def test_a_paraphrase_is_a_hit_and_another_known_task_a_false_push(env):
    env.reset(seed=0, options={"user": USERS[0], "day": 0})
    while env.unwrapped.truth().intent is None or "Li Wei" not in env.unwrapped.truth().intent:
        env.step("no action")
    _, reward, *_ = env.step(answer("tell Li Wei understood in the chat"))
    assert (reward, env.unwrapped.outcomes[-1]) == (1.0, "tp")
    other = next(t for t in env.unwrapped.matcher.known if "Li Wei" not in t)
    _, reward, *_ = env.step(answer(other, "UPDATE"))
    assert (reward, env.unwrapped.outcomes[-1]) == (-1.0, "fp")


def test_a_push_quoting_another_person_than_the_targets_is_false(env):
    # Gold quotes no name ("the chat asking whether you will come to the reunion"), so
    # any quoted one was left to the embedding: a push naming another person matched.
    env.reset(seed=0, options={"user": USERS[0], "day": 0})
    matcher = env.unwrapped.matcher
    while env.unwrapped.truth().intent is None or matcher.task(
            env.unwrapped.truth().intent) != "G-WCT-01:personal":
        env.step("no action")
    said = ('In Chat, open the chat with "{}" asking whether you will come to the reunion to '
            "read the latest messages.")
    _, reward, *_ = env.step(answer(said.format("Ana Lima")))
    assert (reward, env.unwrapped.outcomes[-1]) == (-1.0, "fp")
    assert matcher.task(env.unwrapped.truth().intent) == "G-WCT-01:personal"  # still on it
    _, reward, *_ = env.step(answer(said.format("Lucas Martin")))  # its target
    assert (reward, env.unwrapped.outcomes[-1]) == (1.0, "tp")


@pytest.mark.parametrize(("said", "why"), [
    ("maybe later", "must be \"no action\" or a JSON object"),
    ('{"Intent": 3}', '"Intent" must be a text or null'),
    ('{"Intnet": "Play a song"}', 'neither an "Intent" nor a "Memory" key'),
    (None, "must be text"),
])
def test_malformed_answers_count_as_no_action_and_are_named(env, said, why):
    env.reset(seed=0, options={"user": USERS[0], "day": 0})
    gold = env.unwrapped.truth().intent
    _, reward, _, _, info = env.step(said)
    assert reward == 0.0 and why in info["malformed"]
    assert env.unwrapped.outcomes[-1] == ("tn" if gold is None else "fn")


def test_answers_are_read_leniently():
    assert parse_proposal("No action.") == parse_proposal(answer(None)) == parse_proposal(
        '{"intent": null}')
    said = parse_proposal('Sure: {"INTENT": " Play  a song ", "memory": "resume"} ok')
    assert (said.intent, said.memory, said.error) == ("Play a song", "RESUME", None)
    bad = parse_proposal(json.dumps({"Intent": "Play a song", "Memory": "FORGET"}))
    assert bad.intent == "Play a song" and bad.memory is None and "FORGET" in bad.error
    fenced = parse_proposal("```json\n{'Intent': 'Play a song', 'Memory': 'IDLE',}\n```")
    assert (fenced.intent, fenced.memory, fenced.error) == ("Play a song", "IDLE", None)
    thought = parse_proposal('```\nthe user is idle\n```\n{"Intent": "Play a song"}')
    assert (thought.intent, thought.error) == ("Play a song", None)
    # "Memory" alone (a turn of noise: nothing to propose, the memory idles) was refused
    # as '"Intent" must be a text or null, got None', and its operation dropped.
    idle = parse_proposal('{"Memory": "IDLE"}')
    assert (idle.intent, idle.memory, idle.error) == (None, "IDLE", None)


def test_numpy_counts_come_in_as_python_ints():
    # deque(maxlen=...) and timedelta(days=...) refuse NumPy integers.
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, window=np.int64(3),
                   history_days=np.int32(1), frame_size=(np.int64(108), 240))
    made = env.unwrapped
    assert [type(v) for v in (made.window, made.history_days, *made.frame_size)] == [int] * 4
    assert len(env.reset(seed=0)[0]["frames"]) == 3


def test_a_window_too_big_to_draw_is_refused_at_make():
    # window=10**7 was taken; reset then asked NumPy for 2.83 TiB and failed half-way.
    with pytest.raises(MobileIntentError, match=r"window=10000000 frames of 216x480 take "
                                                r"2\.9e\+03 GiB an observation; at most "
                                                r"3452 frames of that size \(1 GiB\)"):
        gym.make("Act2Intent-Proactive-v0", users=USERS, window=10**7)
    made = gym.make("Act2Intent-Proactive-v0", users=USERS, window=3452).unwrapped
    assert made.observation_space["frames"].shape == (3452, 480, 216, 3)


def test_bad_arguments_options_and_stepping_past_the_end(env):
    with pytest.raises(MobileIntentError, match=r"window=0: must be integers"):
        gym.make("Act2Intent-Proactive-v0", users=USERS, window=0, frame_size=(-5, 480))
    with pytest.raises(MobileIntentError, match=r"frame_size must be \(width, height\), got 5"):
        gym.make("Act2Intent-Proactive-v0", users=USERS, frame_size=5)
    with pytest.raises(MobileIntentError, match=r"match_threshold must be .* got '0.6'"):
        gym.make("Act2Intent-Proactive-v0", users=USERS, match_threshold="0.6")
    env.reset(seed=3)
    with pytest.raises(MobileIntentError, match="unknown reset options"):
        env.reset(options={"turn": 2})
    _episode(env, lambda e: NeverPropose(), seed=3)
    with pytest.raises(MobileIntentError, match="reset"):
        env.step("no action")
    # truth() gave the last turn's label again once the episode was over, and before any
    # reset an AttributeError.
    for made in (env.unwrapped, gym.make("Act2Intent-Proactive-v0", users=USERS).unwrapped):
        with pytest.raises(MobileIntentError, match=r"no turn is under way: call reset\(\)"):
            made.truth()


def test_the_frames_space_bounds_take_no_memory(env):
    # A plain Box would hold four arrays of the frames' shape (12 MB here).
    frames = env.observation_space["frames"]
    assert frames.shape == (10, 480, 216, 3) and frame_bounds_bytes(frames) == 4 * 216 * 3
    assert frames.contains(np.zeros(frames.shape, np.uint8))


@pytest.mark.parametrize("copy_env", COPIES)
def test_a_copy_taken_mid_day_goes_on_as_the_original(copy_env):
    # The replay behind the screens was a generator: any copy after reset() raised
    # "cannot pickle 'generator' object".
    env = gym.make("Act2Intent-Proactive-v0", users=USERS, window=2, frame_size=(54, 120))
    obs, info = env.reset(seed=0)
    agent = MostFrequentProposer(env)
    for _ in range(5):
        obs, *_, info = env.step(agent.act(obs, info))
    assert_copy_goes_on(env, copy_env, agent, obs, info, 5)
    env.close()


def test_the_eager_proposer_proposes_the_most_frequent_intention_of_the_history():
    past = history(
        ("2024-05-01 08:10", "music", "Play jazz", "Listen music"),
        ("2024-05-01 08:20", "chat", "Reply to Li", "Chatting"),
        ("2024-05-01 09:30", "chat", "Reply to Li", "Chatting"))
    assert json.loads(MostFrequentProposer().act({"history": past}, {})) == {
        "Intent": "Reply to Li", "Memory": "UPDATE"}
    assert MostFrequentProposer().act({"history": "(none)"}, {}) == NeverPropose().act({}, {})
