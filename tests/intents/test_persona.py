"""Persona text: summarised from behaviour, not copied from the profile."""

from datetime import datetime, timedelta

from mobileintent_gym.intents import IntentionSegment, persona_text
from mobileintent_gym.users import resolve_profile

from .conftest import USER


def _seg(day, hour, minute, event, text, kind="intention"):
    return IntentionSegment(datetime(2026, 3, 2 + day, hour, minute), "Music", event, text,
                            kind=kind)


def test_the_persona_names_routines_shares_and_sequences():
    history = []
    for day in range(4):
        history.append(_seg(day, 8, 10 + day, "Listen music", 'Play "Kite Strings" in Music.'))
        history.append(_seg(day, 8, 20 + day, "Chatting", "Reply to Li Wei in Chat."))
        history.append(_seg(day, 21, 0, "Listen music", "Open a playlist in Music."))
    history.append(_seg(1, 12, 0, "Noise", "Browsed Music", kind="distractor"))
    text = persona_text(history)
    assert text.startswith("Over 4 days the user had 12 intentions, mostly in the early "
                           "morning (66%), evening (33%).")
    assert "Most frequent: Listen music (66%), Chatting (33%)" in text
    assert 'on 4 of 4 days, around 08:12: Play "Kite Strings" in Music' in text
    assert "Chatting often follows Listen music" in text
    assert 'Often named: "Kite Strings"' in text and "Browsed" not in text


def test_no_history_says_so():
    assert persona_text([]) == "No history yet."


def test_a_generated_persona_comes_from_behaviour_not_from_the_profile(week):
    text = persona_text([s for session in week for s in session.segments])
    profile = resolve_profile(USER)
    liked = [v for attrs in profile.affinities.values() for values in attrs.values()
             for v in ([values] if isinstance(values, str) else values)]
    assert not any(value in text for value in liked if len(value) > 4)
    assert "Routines:" in text and f"Over {len(week)} days" in text
    assert persona_text([s for session in week[:3] for s in session.segments]) != text


def test_intentions_close_in_time_count_as_sequences_only_within_15_minutes():
    base = [_seg(d, 9, 0, "Listen music", "a") for d in range(3)]
    late = [IntentionSegment(s.time + timedelta(minutes=20), "Chat", "Chatting", "b")
            for s in base]
    assert "follows" not in persona_text(base + late)


def test_routines_are_intentions_seen_on_most_days():
    # "On most days": 3 days of 7 read as a routine.
    history = [IntentionSegment(datetime(2026, 3, 2 + d, 20, 0), "Music", "Listen music",
                                f"Open playlist {d}.") for d in range(7)]
    chat = [IntentionSegment(datetime(2026, 3, 2 + d, 8, 0), "Chat", "Chatting",
                             "Reply to Li Wei in Chat.") for d in (0, 3, 6)]
    assert "Routines:" not in persona_text(history + chat)
    more = [IntentionSegment(datetime(2026, 3, 2 + d, 8, 0), "Chat", "Chatting",
                             "Reply to Li Wei in Chat.") for d in (1, 4)]
    assert "on 5 of 7 days, around 08:00: Reply to Li Wei in Chat" in persona_text(
        history + chat + more)


def _pairs(gap, days=3, second="Chatting"):
    """Music at 09:00 and then ``second`` ``gap`` later, on ``days`` days."""
    return [s for d in range(days) for s in (
        _seg(d, 9, 0, "Listen music", "a"),
        IntentionSegment(datetime(2026, 3, 2 + d, 9, 0) + gap, "Chat", second, "b"))]


def test_a_sequence_is_seen_three_times_within_15_minutes_between_two_kinds():
    assert "Chatting often follows Listen music" in persona_text(_pairs(timedelta(minutes=15)))
    assert "follows" not in persona_text(_pairs(timedelta(minutes=5), days=2))  # twice: chance
    # The same kind again is no sequence.
    assert "follows" not in persona_text(_pairs(timedelta(minutes=5), second="Listen music"))


def test_the_persona_reads_the_history_in_time_order():
    history = _pairs(timedelta(minutes=5))
    assert persona_text(history[::-1]) == persona_text(history)


def test_hours_after_midnight_count_as_the_night():
    history = [_seg(d, 2, 30, "Listen music", "Open a playlist in Music.") for d in range(2)]
    assert persona_text(history).startswith("Over 2 days the user had 2 intentions, mostly "
                                            "in the night (100%).")


def test_at_most_three_routines_are_named_the_most_frequent_first():
    history = [_seg(d, 8 + k, 0, "Listen music", f"Routine {k}.")
               for d in range(4) for k in range(4)]
    history += [_seg(d, 20, 0, "Listen music", "Routine 3.") for d in range(2)]
    routines = persona_text(history).split("Routines: ")[1].split(".")[0].split("; ")
    assert [r.split(": ")[1] for r in routines] == ["Routine 3", "Routine 0", "Routine 1"]


def test_an_interleaved_intention_counts_once():
    # Its first part counted too: two intentions made three, Listen music 67%.
    first = IntentionSegment(datetime(2026, 3, 2, 9), "Music", "Listen music", "Play jazz",
                             part=1)
    between = _seg(0, 9, 5, "Chatting", "Reply to Li Wei")
    second = IntentionSegment(datetime(2026, 3, 2, 9, 10), "Music", "Listen music",
                              "Play jazz", part=2)
    assert persona_text([first, between, second]) == (
        "Over 1 day the user had 2 intentions, mostly in the late morning (100%). Most "
        "frequent: Chatting (50%), Listen music (50%); apps: Music (100%).")
