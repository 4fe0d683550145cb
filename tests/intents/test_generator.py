"""The generator: judged intentions, person-like behaviour, carried state, exact replays."""

import itertools
import json
from dataclasses import replace
from datetime import date, datetime, timedelta

import numpy as np
import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import generate_sessions, replay
from mobileintent_gym.intents.generator import GeneratorConfig, UserLife
from mobileintent_gym.intents.routine import Planned
from mobileintent_gym.intents.schema import TIME_FORMAT
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.state import DEFAULT_CLOCK
from mobileintent_gym.tasks import Judge, instantiate
from mobileintent_gym.users import load_user_content
from tests.helpers import content_times

from .conftest import USER, lexical_config


def test_a_week_has_intentions_and_noise_with_contexts(week):
    intentions = [s for session in week for s in session.intentions()]
    noise = [s for session in week for s in session.segments if s.is_noise]
    assert len(week) == 7 and len(intentions) >= 40 and noise
    assert [s.context.date for s in week] == [f"2026-03-0{d}" for d in range(2, 9)]
    assert {s.context.weekday for s in week} == {"Monday", "Tuesday", "Wednesday", "Thursday",
                                                  "Friday", "Saturday", "Sunday"}
    for session in week:
        times = [s.time for s in session.segments]
        assert times == sorted(times)
        assert all(s.steps and s.context.place for s in session.segments)
    labels = {bundle.app.label for bundle in registry.bundles()}
    assert all(s.success is True and s.task and s.app in labels for s in intentions)
    assert len({s.app for s in intentions}) >= 6  # a week goes through most apps
    assert {s.kind for s in noise} == {"idle", "accidental", "distractor"}


def _rejudged(session, content):
    """Replay a session on a new phone and judge each intention again from its events."""
    phone = SimPhone()
    verdicts, judge = {}, {}
    act = phone.act

    def judged_act(action):
        result = act(action)
        if current["judge"] is not None:
            verdict = current["judge"].update(result.event,
                                              lambda: hierarchy.parse(phone.hierarchy()))
            verdicts[current["segment"]] = verdict.success
        events.append(result.event)
        return result

    current, events = {"judge": None, "segment": None}, []
    phone.act = judged_act
    for segment, _step in replay(session, phone):
        if segment is not current["segment"]:
            current["segment"] = segment
            current["judge"] = None
            if not segment.is_noise:
                judge = Judge(instantiate(segment.task, content))
                judge.start(phone.route(), lambda: hierarchy.parse(phone.hierarchy()))
                current["judge"] = judge
    phone.close()
    return verdicts, events


def test_every_kept_intention_is_judged_achieved_again_on_a_replay(week):
    content = load_user_content(USER)
    for session in week[:3]:
        verdicts, events = _rejudged(session, content)
        recorded = [step.event for seg in session.segments for step in seg.steps]
        assert [(e.action, e.route_before, e.route_after, e.hit, e.visible, e.typed, e.clock)
                for e in events] == [(e.action, e.route_before, e.route_after, e.hit,
                                      e.visible, e.typed, e.clock) for e in recorded]
        assert all(verdicts[s] for s in session.intentions())


def test_the_user_behaves_like_a_person_not_like_the_oracle(week):
    steps = [step for session in week for s in session.intentions() for step in s.steps]
    descriptions = [s.description for s in steps]
    assert any("fix a typo" in d for d in descriptions)  # a slip deleted with the keyboard
    assert any(s.action == "SWIPE[DOWN]" for s in steps)  # an overshoot scrolled back
    assert any(s.action == "PRESS[BACK]" for s in steps)  # detours, retries, backing out
    clocks = [datetime.strptime(s.event.clock, TIME_FORMAT) for s in steps]
    pauses = {(b - a).total_seconds() for a, b in itertools.pairwise(clocks)
              if b > a and (b - a).total_seconds() < 120}
    assert len(pauses) > 10 and max(pauses) > 8  # varied pauses, some long


def test_phone_state_carries_over_between_segments_and_days(week):
    # Each new playlist's name field offers the next number: "My playlist #<n>".
    offered = [int(d.split("#")[1].split('"')[0]) for session in week for s in session.segments
               for d in (step.description for step in s.steps) if "My playlist #" in d]
    assert len(offered) >= 3 and offered == sorted(offered) and len(set(offered)) == len(offered)
    continuing = [s for session in week for s in session.segments[1:] if not s.fresh]
    assert continuing and any(not s.steps[0].description.startswith("On the home screen")
                              for s in continuing)  # goes on from the screen left open


def test_an_intention_the_judge_does_not_see_achieved_is_undone_and_left_out():
    life, rng = UserLife(USER), np.random.default_rng(0)
    add = "G-WRE-02:common:explicit"
    first = life.carry_out(Planned(datetime(2026, 3, 2, 9, 0), "intention", add), rng)
    assert first is not None and first.success and first.fresh
    reader = life.phone.state.apps["reader"]
    before = (reader.favorites, reader.reading)
    again = life.carry_out(Planned(datetime(2026, 3, 2, 9, 2), "intention", add), rng)
    assert again is None and life.dropped == 1  # the book is on the list: it cannot be added
    reader = life.phone.state.apps["reader"]
    assert (reader.favorites, reader.reading) == before
    assert life.phone.route() == "launcher"  # the phone was put away
    later = life.carry_out(Planned(datetime(2026, 3, 2, 9, 3), "idle"), rng)
    assert later.fresh
    life.close()


def test_the_user_goes_on_from_the_screen_left_open_and_searches_both_ways():
    """A chat left open is backed out of, and a list left scrolled down is scrolled back up."""
    life, rng = UserLife("demo-chen"), np.random.default_rng(1)  # her chat is below the fold
    first = life.carry_out(Planned(datetime(2026, 3, 2, 9, 0), "intention",
                                   "G-WCT-01:personal:explicit"), rng)
    assert first.success and any(s.action == "SWIPE[UP]" for s in first.steps)
    then = life.carry_out(Planned(datetime(2026, 3, 2, 9, 3), "intention",
                                  "G-WCT-02:common:explicit"), rng)
    assert then is not None and then.success and not then.fresh
    assert then.steps[0].description == "In Chat, press Back, to go back to Chats"
    assert any(s.action == "SWIPE[DOWN]" for s in then.steps)
    life.close()


def test_days_are_lived_in_order_or_refused_with_nothing_lived():
    # day(0) twice crammed a second day into the last hour of the first; day(5) then
    # day(2) returned a session of day 5's date for day 2.
    life = UserLife(USER)
    first = life.day(0)
    clock = life.phone.clock
    for index in (0, -1, 1.0, "1"):
        with pytest.raises(MobileIntentError, match=f"day {index!r}: days are lived in order, "
                                                    "after day 0"):
            life.day(index)
    assert life.phone.clock == clock
    third = life.day(2)
    assert (first.context.date, third.context.date) == ("2026-03-02", "2026-03-04")
    life.close()


def test_sessions_are_fixed_by_seed():
    one = generate_sessions(USER, 1, seed=5)
    assert one == generate_sessions(USER, 1, seed=5)
    assert one != generate_sessions(USER, 1, seed=6)


def test_replay_needs_a_generated_session(week):
    with pytest.raises(ValueError, match="no start state"):
        next(replay(replace(week[0], start=None), SimPhone()))


def test_a_first_day_given_as_a_datetime_is_that_day():
    # plan_day kept the segments whose date equals the day: a datetime never did, so every
    # day came out empty.
    def day(first) -> list[tuple[str, str]]:
        (session,) = generate_sessions(USER, 1, 0, lexical_config(first_day=first))
        return [(s.time, s.intention) for s in session.segments]

    assert GeneratorConfig(first_day=datetime(2026, 3, 9, 12)).first_day == date(2026, 3, 9)
    expected = day(date(2026, 3, 9))
    assert len(expected) >= 5 and day(datetime(2026, 3, 9, 12)) == expected
    with pytest.raises(ValueError, match=r"first_day must be a date in 1900-9998, got "
                                         r"'2026-03-09'"):
        GeneratorConfig(first_day="2026-03-09")
    # Year 5 was taken: its content's times came out as "5-03-01 09:40", which no reader
    # of them parses back.
    with pytest.raises(ValueError, match=r"first_day must be a date in 1900-9998, got "
                                         r"datetime.date\(5, 3, 2\)"):
        GeneratorConfig(first_day=date(5, 3, 2))
    with pytest.raises(ValueError, match="first_day must be a date in 1900-9998"):
        GeneratorConfig(first_day=datetime(5, 3, 2, 12))  # a datetime's day is checked too


def test_no_day_is_lived_past_the_last_day_the_calendar_allows():
    # From 9998-12-31 days 360-365 failed in the meeting app (OverflowError, undone as a
    # DeviceError) and day 366 raised a bare OverflowError.
    life = UserLife(USER, 0, lexical_config(first_day=date(9998, 12, 31)))
    assert life.day(0).start.clock == datetime(9998, 12, 31)
    for index in (1, 366, 10**12):
        with pytest.raises(MobileIntentError, match=rf"day {index} is after 9998-12-31, the "
                                                    r"last day a life from 9998-12-31 can "
                                                    r"reach \(day 0\)"):
            life.day(index)
    assert life.lived == 0
    with pytest.raises(MobileIntentError, match=r"day 1 is after 9998-12-31"):
        generate_sessions(USER, 2, 0, lexical_config(first_day=date(9998, 12, 31)))


@pytest.mark.parametrize("first", [date(2026, 3, 2), date(2025, 9, 1)])
def test_the_phone_is_as_the_user_left_it_the_day_before_the_first_day(first):
    # The content was dated as of 09:41 on 2026-03-02 whatever the first day: at 07:30 on
    # that day the chat list showed messages of 09:40, and a first day in 2025 showed bills
    # of 2026.
    life = UserLife(USER, 0, lexical_config(first_day=first))
    written, moved = (content_times(s.apps) for s in (life.content.state, life.phone.state))
    eve = datetime.combine(first - timedelta(days=1), DEFAULT_CLOCK.time())
    assert life.phone.state.clock == datetime.combine(first, datetime.min.time())
    scheduled = {m.start for m in life.phone.state.apps["meeting"].scheduled}
    assert min(scheduled) > f"{eve:%Y-%m-%d %H:%M}"
    # Nothing else is dated after the eve: the last chat message is the last of it.
    assert max(set(moved) - scheduled) == f"{eve - timedelta(minutes=1):%Y-%m-%d %H:%M}"
    assert [_minute(t) + (eve - DEFAULT_CLOCK) for t in written if t] == [
        _minute(t) for t in moved if t]
    assert life.day(0).start.apps == life.content.state.moved_to(eve, life.phone.apps).apps


def _minute(time: str) -> datetime:
    return datetime.strptime(time, "%Y-%m-%d %H:%M")


@pytest.mark.parametrize(("call", "says"), [
    # Nothing at all without a word; a TypeError; a TypeError deep in the content cache.
    (lambda: generate_sessions(USER, -3), "days must be an integer >= 0, got -3"),
    (lambda: generate_sessions(USER, 2.0), "days must be an integer >= 0, got 2.0"),
    (lambda: _config(pair={"encoder": "lexical"}), "pair must be a PairConfig, got dict"),
    (lambda: _config(width="1080"), "width must be a positive integer"),
])
def test_generation_settings_of_the_wrong_kind_are_named(call, says):
    with pytest.raises((ValueError, TypeError), match=says):
        call()


def _config(**kwargs):
    from mobileintent_gym.intents import GeneratorConfig

    return GeneratorConfig(**kwargs)


def test_habits_given_as_a_mapping_are_kept_as_hashable_pairs():
    # A dict (the natural shape for "habits per user id") reached cached_sessions, whose
    # cache hashes the config: every intention env failed in reset() with a TypeError.
    from mobileintent_gym.intents import GeneratorConfig, build_routine
    from mobileintent_gym.users import resolve_profile

    habits = build_routine(resolve_profile(USER)).habits[:2]
    as_dict = GeneratorConfig(habits={USER: list(habits)})
    assert as_dict == GeneratorConfig(habits=((USER, habits),))
    assert as_dict.habits == ((USER, habits),) and hash(as_dict)
    with pytest.raises(ValueError, match=r"habits of 'demo-ana' must be Habit objects, "
                                         r"got 'wake up'"):
        GeneratorConfig(habits={USER: ["wake up"]})
    with pytest.raises(ValueError, match=r"habits are keyed by user id \(a text\), got 3"):
        GeneratorConfig(habits={3: habits})
    with pytest.raises(ValueError, match=r"habits must be user ids with their habits, got 5"):
        GeneratorConfig(habits=5)


def test_a_replay_that_failed_is_over_and_leaves_the_phone_alone(week):
    # The iterator object that replaced a generator acted the failed step again at every
    # next(), or skipped a step that did not match and went on with wrong screens.
    session = week[0]
    index = next(i for i, s in enumerate(session.segments) if len(s.steps) >= 3)
    segment = session.segments[index]
    bad = segment.steps[1]
    steps = (segment.steps[0], replace(bad, event=replace(bad.event, route_after="bogus/x")),
             *segment.steps[2:])
    segments = list(session.segments)
    segments[index] = replace(segment, steps=steps)
    phone = SimPhone()
    pairs = replay(replace(session, segments=tuple(segments)), phone)
    with pytest.raises(ValueError, match="went with 'bogus/x'"):
        while True:
            next(pairs)
    after = (phone.route(), phone.clock, len(phone.events))
    for _ in range(2):
        with pytest.raises(StopIteration):
            next(pairs)
    assert (phone.route(), phone.clock, len(phone.events)) == after


def test_a_day_whose_segment_failed_is_over():
    life = UserLife(USER, 0, lexical_config())
    calls, carry_out = [], life.carry_out

    def failing(item, rng):
        calls.append(item)
        if len(calls) == 3:
            raise RuntimeError("the phone failed")
        return carry_out(item, rng)

    life.carry_out = failing
    day = life.live(0)
    with pytest.raises(RuntimeError, match="the phone failed"):
        while True:
            next(day)
    with pytest.raises(StopIteration):
        next(day)
    assert len(calls) == 3  # the failed segment is not tried again


def test_habits_given_in_the_config_join_that_users_routine_only():
    from mobileintent_gym.intents.routine import Habit, Trigger

    habit = Habit("knowu", "G-WCT-02:personal:explicit", Trigger(600, 609), 0.9, "knowu")
    config = lexical_config(habits={USER: [habit], "demo-chen": []})
    lives = [UserLife(USER, 0, config), UserLife(USER, 0, lexical_config()),
             UserLife("demo-chen", 0, lexical_config(habits={USER: [habit]}))]
    mine, plain, other = (life.routine.habits for life in lives)
    assert mine == (*plain, habit) and habit not in other
    for life in lives:
        life.close()


def test_the_deciding_step_is_not_told_the_intentions_operation():
    # Told it, the step marked the intention's end for an Understand agent to read off.
    life, rng = UserLife(USER, 0, lexical_config()), np.random.default_rng(0)
    for task_id in ("G-SPT-02:personal:explicit", "G-WCT-02:common:implicit"):
        segment = life.carry_out(Planned(datetime(2026, 3, 2, 9, 0), "intention", task_id), rng)
        operation = instantiate(task_id, life.content).template.text.replace("; ", " and ")
        ends = [s.description.endswith(f", to {operation}") for s in segment.steps]
        assert segment.success and not any(ends), segment.steps[-1].description
    life.close()


def test_a_segment_starts_after_the_one_before_has_ended():
    for session in generate_sessions(USER, 2, 0, lexical_config(noise=0.8)):
        for before, after in itertools.pairwise(session.segments):
            ended = datetime.strptime(before.steps[-1].event.clock, TIME_FORMAT)
            first = datetime.strptime(after.steps[0].event.clock, TIME_FORMAT)
            assert after.time > ended and first >= after.time


def test_a_typing_slip_hits_a_neighbouring_letter_key():
    from mobileintent_gym.intents.behaviour import _neighbour

    assert [_neighbour(c) for c in "qaPmz"] == ["w", "s", "o", "n", "x"]


def test_a_segment_planned_before_the_last_one_ended_starts_after_it():
    from datetime import timedelta

    life, rng = UserLife(USER, 0, lexical_config()), np.random.default_rng(0)
    first = life.carry_out(Planned(datetime(2026, 3, 2, 9, 0), "intention",
                                   "G-SPT-02:personal:explicit"), rng)
    ended = datetime.strptime(first.steps[-1].event.clock, TIME_FORMAT)
    then = life.carry_out(Planned(datetime(2026, 3, 2, 9, 0, 10), "intention",
                                  "G-WCT-02:common:explicit"), rng)
    assert ended > datetime(2026, 3, 2, 9, 0, 10)  # the first one was not over by then
    assert then.time == ended + timedelta(seconds=30) and not then.fresh
    assert datetime.strptime(then.steps[0].event.clock, TIME_FORMAT) >= then.time
    life.close()


def test_kept_sessions_follow_the_profiles_content_not_how_the_user_is_written(tmp_path):
    # Kept by the user as written: a profile edited since came back as it was lived
    # before (its content, built anew, no longer matched its days), and the same profile
    # given by name and by path was lived twice.
    from mobileintent_gym.intents.generator import cached_sessions
    from mobileintent_gym.users.profile import builtin_profiles_dir

    config = lexical_config()
    path = tmp_path / "someone.json"
    profile = json.loads((builtin_profiles_dir() / f"{USER}.json").read_text())
    path.write_text(json.dumps(profile))
    by_path = cached_sessions(str(path), 1, 0, config)
    assert cached_sessions(USER, 1, 0, config) is by_path
    path.write_text(json.dumps({**profile, "user_id": "someone-else"}))
    assert cached_sessions(str(path), 1, 0, config)[0].user == "someone-else"


def test_an_understand_env_follows_an_edited_profile_to_its_new_days(tmp_path):
    # Its days with a whole window were kept by the user string while the days themselves
    # followed the profile's content: after an edit they disagreed, and a reset failed
    # inside NumPy ("high <= 0").
    import gymnasium as gym

    from mobileintent_gym.intents.generator import cached_sessions
    from mobileintent_gym.users.profile import builtin_profiles_dir

    path = tmp_path / "someone.json"
    profile = json.loads((builtin_profiles_dir() / f"{USER}.json").read_text())
    path.write_text(json.dumps(profile))
    config = lexical_config()
    with gym.make("Act2Intent-Understand-v0", users=[str(path)], days=4, window=9,
                  config=config) as env:
        env.reset(seed=0)
        path.write_text(json.dumps({**profile, "user_id": "someone-else"}))
        sessions = cached_sessions(str(path), 4, 0, config)
        whole = [i for i, s in enumerate(sessions) if len(s.intentions()) >= 9]
        assert whole == [0]  # of [0, 1, 2, 3] before the edit (13, 9, 9, 9 intentions)
        assert env.unwrapped._days(str(path)) == (sessions, whole)
        for seed in range(5):
            _, info = env.reset(seed=seed)
            assert info["user"] == "someone-else" and info["day"] in whole


def test_an_assist_env_lives_an_edited_profile_anew_and_closes_the_old_life(tmp_path,
                                                                          monkeypatch):
    # Kept by the profile's content, every edit added a life (and its phone) that stayed
    # open until the env closed.
    import gymnasium as gym

    from mobileintent_gym.envs import assist
    from mobileintent_gym.users.profile import builtin_profiles_dir

    lives, life = [], assist.UserLife
    monkeypatch.setattr(assist, "UserLife", lambda *args: lives.append(life(*args)) or lives[-1])
    path = tmp_path / "someone.json"
    profile = json.loads((builtin_profiles_dir() / f"{USER}.json").read_text())
    path.write_text(json.dumps(profile))
    with gym.make("Act2Intent-Assist-v0", users=[str(path)], config=lexical_config()) as env:
        env.reset(seed=0)
        env.reset(seed=1)
        assert len(lives) == 1  # reused
        path.write_text(json.dumps({**profile, "user_id": "someone-else"}))
        _, info = env.reset(seed=0)
        assert info["user"] == "someone-else" and len(lives) == 2  # lived anew
        assert len(env.unwrapped._lives) == 1
        assert lives[0].phone._closed and not lives[1].phone._closed
    assert lives[1].phone._closed
