"""Noisy days: a set noise rate, and intentions interrupted by another segment and resumed."""

import re
from datetime import datetime, timedelta

import numpy as np
import pytest

from mobileintent_gym.intents import replay
from mobileintent_gym.intents.behaviour import Attempt, Hand, Manner
from mobileintent_gym.intents.generator import GeneratorConfig, UserLife, cached_sessions
from mobileintent_gym.intents.routine import Planned
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.tasks import instantiate
from mobileintent_gym.users import PairConfig, load_user_content

from .conftest import USER, lexical_config

NOISY = GeneratorConfig(noise=0.8, interleave=0.3)


@pytest.fixture(scope="module")
def noisy():
    return cached_sessions(USER, 4, 0, NOISY)


def test_an_interrupted_intention_comes_in_two_parts_around_another_segment(noisy):
    segments = [s for day in noisy for s in day.segments]
    firsts = [i for i, s in enumerate(segments) if s.part == 1]
    assert len(firsts) >= 3
    for i in firsts:
        first, between, rest = segments[i:i + 3]
        assert between.part == 0 and between.intention != first.intention
        assert (rest.part, rest.task, rest.intention) == (2, first.task, first.intention)
        assert first.success is None and rest.success is True
        assert 2 <= len(first.steps) <= 7  # paused after 2-5 actions (a slip may add two)
        assert first.time < between.time < rest.time
    assert sum(s.part == 2 for s in segments) == len(firsts)
    assert all(s.part == 0 for s in segments if s.is_noise)


def test_done_lists_each_intention_once_where_it_ended(noisy):
    for day in noisy:
        done = day.done()
        assert [s for s in day.segments if s in done] == list(done)
        assert all(not s.is_noise and s.part != 1 and s.success for s in done)
        assert len(done) == len(day.intentions()) - sum(s.part == 1 for s in day.segments)


def test_the_noise_rate_is_the_configured_one(noisy):
    noise = sum(s.is_noise for day in noisy for s in day.segments)
    done = sum(len(day.done()) for day in noisy)
    default = cached_sessions(USER, 4, 0, GeneratorConfig())
    quiet = sum(s.is_noise for day in default for s in day.segments)
    assert 0.5 * done <= noise <= 1.2 * done and quiet < noise / 2
    assert not any(s.part for day in default for s in day.segments)  # interleave 0: never


def test_an_interleaved_day_replays_exactly(noisy):
    phone = SimPhone()
    for day in noisy[:2]:
        replayed = []
        for _segment, step in replay(day, phone):
            replayed.append((step.event.action, phone.route()))
        recorded = [(st.event.action, st.event.route_before) for s in day.segments
                    for st in s.steps]
        assert replayed == recorded
    phone.close()


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"noise": 2.0}, "noise must be a number in [0, 1], got 2.0"),
    ({"noise": -0.1}, "noise must be a number in [0, 1], got -0.1"),
    ({"noise": True}, "noise must be a number in [0, 1], got True"),
    ({"interleave": 1.5}, "interleave must be a number in [0, 1], got 1.5"),
    ({"interleave": None}, "interleave must be a number in [0, 1], got None"),
])
def test_rates_outside_zero_to_one_are_named(kwargs, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        GeneratorConfig(**kwargs)


def test_the_intention_csv_lists_an_interrupted_intention_once(noisy, tmp_path):
    from mobileintent_gym.intents.act2intention import load_intentions_csv, write_intentions_csv

    sessions = noisy
    segments = [s for session in sessions for s in session.segments]
    assert any(s.part == 1 for s in segments)  # the days do hold an interrupted intention
    write_intentions_csv(segments, tmp_path / "intentions.csv")
    rows = load_intentions_csv(tmp_path / "intentions.csv")
    done = [s for session in sessions for s in session.done()]
    assert [(r.time, r.intention) for r in rows] == [(s.time, s.intention) for s in done]


def test_the_summary_counts_an_interrupted_intention_once(noisy):
    # Both parts were counted: more intentions in the summary than rows in the CSV.
    from mobileintent_gym.intents.command import summarise

    summary = summarise(noisy, 1.0)
    segments = [s for day in noisy for s in day.segments]
    done = [s for day in noisy for s in day.done()]
    assert summary["intentions"] == len(done) < sum(not s.is_noise for s in segments)
    assert summary["noise"] == sum(s.is_noise for s in segments)
    assert sum(summary["classes"].values()) == len(done) == summary["succeeded"]


def test_an_intention_is_not_interrupted_by_the_same_task_nor_is_its_interrupter():
    life = UserLife(USER, 0, lexical_config(interleave=1.0))
    start, reply, read = (datetime(2026, 3, 2, 9), "G-WCT-02:common:explicit",
                          "G-WRE-01:common:explicit")
    kinds = [("intention", reply), ("intention", reply), ("intention", read),
             ("intention", reply), ("idle", None)]
    plan = [Planned(start + timedelta(minutes=5 * i), kind, task)
            for i, (kind, task) in enumerate(kinds)]
    breaks = life._breaks(plan, start.date())
    assert set(breaks) == {1, 3} and all(2 <= n <= 5 for n in breaks.values())
    life.close()


def test_a_resumed_intention_given_up_drops_the_intention_between_too():
    life = UserLife(USER, 0, lexical_config())
    rng, add = np.random.default_rng(0), "G-WRE-02:common:explicit"
    assert life.carry_out(Planned(datetime(2026, 3, 2, 9, 0), "intention", add), rng).success
    # The book is on the list now: adding it again can never be achieved.
    between = Planned(datetime(2026, 3, 2, 9, 5), "intention", "G-WCT-01:common:explicit")
    out = life._interleaved(Planned(datetime(2026, 3, 2, 9, 2), "intention", add), between,
                            2, rng)
    assert out == [] and life.dropped == 2
    life.close()


def _attempt(manner: Manner) -> tuple[Attempt, SimPhone]:
    """An attempt at replying in Chat with ``manner``, on a phone of its own."""
    content = load_user_content(USER, PairConfig(encoder="lexical"))
    phone = SimPhone(540, 1200)
    phone.reset(content.state)
    return Attempt(Hand(phone, np.random.default_rng(0), manner),
                   instantiate("G-WCT-02:common:explicit", content)), phone


def test_a_paused_attempt_stops_after_as_many_actions_as_asked_and_goes_on_later():
    # One action per move: no detours, overshoots, retries or typos.
    attempt, phone = _attempt(Manner(detour=0, overshoot=0, retry=0, typo=0))
    assert not attempt.run(pause_after=3) and attempt.paused
    assert len(attempt.hand.steps) == 3
    assert attempt.run() and len(attempt.hand.steps) > 3
    phone.close()


def test_slips_stop_halfway_to_the_step_limit():
    # A detour before every tap.
    attempt, phone = _attempt(Manner(detour=1.0, max_steps=40, patience=40))
    assert attempt.run() and 20 < len(attempt.hand.steps) <= 40
    phone.close()
