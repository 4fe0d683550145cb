"""The closed loop's scores on a hand-computed day."""

import pytest

from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.assist import SegmentOutcome, assist_scores

# An intention of 8 steps handed over after 1 and executed; noise of 3 steps; an intention
# of 6 steps handed over after 2, failed by the assistant and finished with 5 more by hand;
# an intention of 4 steps left to the user.
DAY = [SegmentOutcome(True, 8, 1, True, True), SegmentOutcome(False, 3, 3),
       SegmentOutcome(True, 6, 7, False, True), SegmentOutcome(True, 4, 4, None, True)]


def test_a_day_with_two_hand_overs_and_two_false_alarms():
    s = assist_scores([False, True, False, True], DAY, agent_steps=13)
    assert (s.proposals, s.accepted, s.rejected) == (4, 2, 2)
    assert s.false_alarm_rate == 0.5 and s.accepted_success == 0.5
    assert (s.by_hand_steps, s.user_steps, s.steps_saved) == (21, 15, 6)
    assert s.saved_share == pytest.approx(6 / 21)
    assert (s.agent_steps, s.intentions, s.intentions_done) == (13, 3, 3)


def test_nothing_proposed_saves_nothing_and_leaves_the_rates_undefined():
    s = assist_scores([], [SegmentOutcome(True, 4, 4, None, True)])
    assert (s.false_alarm_rate, s.accepted_success, s.steps_saved) == (None, None, 0)
    assert assist_scores([], []).saved_share is None


@pytest.mark.parametrize(("call", "says"), [
    # An answer "no" counted as accepted; the rest failed deep inside the sums.
    (lambda: assist_scores(["no"], DAY[:1]), "answers: item 0 must be True or False, got "
                                             "str 'no'"),
    (lambda: SegmentOutcome(True, 3, 1, executed="no"), "executed='no': must be True or False"),
    (lambda: SegmentOutcome(True, -3, "x"), "by_hand=-3, taken='x': must be integers >= 0"),
    (lambda: assist_scores([], [(True, 3, 3)]), "segments: item 0 must be a SegmentOutcome"),
    (lambda: assist_scores([], DAY, agent_steps=-1), "agent_steps=-1"),
])
def test_inputs_of_the_wrong_kind_are_named(call, says):
    with pytest.raises(MobileIntentError, match=says):
        call()


def test_accepted_proposals_and_executions_must_agree():
    with pytest.raises(ValueError, match="2 accepted proposals but 1 executions"):
        assist_scores([True, True], DAY[:1])
