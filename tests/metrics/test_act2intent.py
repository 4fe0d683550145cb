"""Acc-G and the alignment behind Acc-S/BLEU-4 on hand-built segmentations."""

import pytest

from mobileintent_gym.metrics.act2intent import (
    aligned_texts,
    goal_accuracy,
    spans,
    understanding_scores,
)
from mobileintent_gym.users import LexicalEncoder

TRUTH = {"System settings adjustment": [1, 2, 3], "Shooting mode configuration": [4, 5],
         "Reply to Mum": [6, 7, 8]}


def test_acc_g_counts_true_spans_that_a_prediction_matches_exactly():
    predicted = {"Adjust settings": [1, 2, 3], "Camera mode": [4, 5, 6], "Message": [7, 8]}
    assert goal_accuracy(predicted, TRUTH) == pytest.approx(1 / 3)
    assert goal_accuracy(TRUTH, TRUTH) == 1.0
    assert goal_accuracy({"Everything": [1, 8]}, TRUTH) == 0.0


def test_texts_align_by_largest_overlap_and_unmatched_truths_get_none():
    predicted = {"Adjust settings": [1, 2], "Camera mode": [3, 4, 5]}
    assert aligned_texts(predicted, TRUTH) == [
        ("Adjust settings", "System settings adjustment"),
        ("Camera mode", "Shooting mode configuration"),
        (None, "Reply to Mum")]


def test_understanding_scores_are_perfect_for_the_truth_and_zero_for_misses():
    encoder = LexicalEncoder()
    perfect = understanding_scores(TRUTH, TRUTH, encoder)
    assert perfect["acc_g"] == 1.0
    assert perfect["acc_s"] == pytest.approx(1.0) and perfect["bleu4"] == pytest.approx(1.0)
    partial = understanding_scores({"System settings adjustment": [1, 2, 3]}, TRUTH, encoder)
    assert partial["acc_g"] == pytest.approx(1 / 3)
    assert partial["acc_s"] == pytest.approx(1 / 3) and partial["bleu4"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("bad", [{"x": [0, 1]}, {"x": []}, {"x": ["1"]}, {"x": [True]}])
def test_bad_indices_are_named(bad):
    with pytest.raises(ValueError, match="segment 'x'"):
        spans(bad)


def test_actions_match_by_the_element_they_reach_text_and_direction():
    from mobileintent_gym.actions import Action
    from mobileintent_gym.metrics.act2intent import action_matches, step_success_rate
    from mobileintent_gym.phone import SimPhone
    from mobileintent_gym.phone.query import find
    from mobileintent_gym.phone.touch import ScreenDump

    phone = SimPhone()
    phone.open("music", "music/library/liked")
    screen, size = ScreenDump(phone.hierarchy()), (1080, 2400)
    row = find(phone.hierarchy(), resource_id="track").bounds
    more = find(phone.hierarchy(), resource_id="more").bounds
    ref = Action.click(row[0] + 300, (row[1] + row[3]) // 2)
    assert action_matches(Action.click(row[0] + 5, row[1] + 5), ref, screen, size)
    # The row's own "more" button lies inside the row's bounds but is another element.
    assert not action_matches(Action.click((more[0] + more[2]) // 2, (more[1] + more[3]) // 2),
                              ref, screen, size)
    assert not action_matches(Action.long_click(ref.x, ref.y), ref, screen, size)
    # Without an element under the reference point (or a dump), 14 % of the screen.
    anywhere = Action.click(500, 300)
    assert action_matches(Action.click(500 + 151, 300 + 336), anywhere, None, size)
    assert not action_matches(Action.click(500 + 152, 300), anywhere, None, size)
    assert not action_matches(Action.click(500, 300 + 337), anywhere, None, size)
    assert action_matches(Action.type_text(" rainy  NIGHT"), Action.type_text("Rainy Night"),
                          None, size)
    assert not action_matches(Action.swipe("UP"), Action.swipe("DOWN"), None, size)
    assert action_matches(Action.press("BACK"), Action.press("BACK"), None, size)
    assert action_matches(Action.complete(), Action.complete(), None, size)
    assert step_success_rate([[True, False], [True, True, True, False]]) == pytest.approx(
        (0.5 + 0.75) / 2)
    assert step_success_rate([]) == 0.0


def test_alignment_ties_go_to_the_earlier_span():
    predicted = {"later": [4, 5], "earlier": [1, 2]}
    assert aligned_texts(predicted, {"truth": [2, 4]}) == [("earlier", "truth")]


def test_prediction_scores_with_and_without_the_confidence_fallback():
    from mobileintent_gym.metrics.act2intent import (
        EVENT_CLASSES,
        PUSH_THRESHOLD,
        Prediction,
        parse_prediction,
        prediction_scores,
    )

    assert len(EVENT_CLASSES) == 20 and PUSH_THRESHOLD == 0.6
    truth = [Prediction("Listen music", "Play the morning playlist"),
             Prediction("Order takeout", "Order a latte"),
             Prediction("Set Alarm", "Set an alarm for 7 am")]
    predicted = [parse_prediction('{"Event": "Listen music", "Behaviour": '
                                  '"Play the morning playlist"}', 0.9),
                 Prediction("Chatting", "Order a latte", 0.7),
                 Prediction("Set Alarm", "Check the weather", 0.3)]
    encoder = LexicalEncoder()
    every = prediction_scores(predicted, truth, encoder)
    assert every["push_rate"] == 1.0 and every["acc_c"] == pytest.approx(2 / 3)
    pushed = prediction_scores(predicted, truth, encoder, threshold=0.6)
    # Only the first two are pushed: one right class; both behaviours exact.
    assert pushed["push_rate"] == pytest.approx(2 / 3) and pushed["acc_c"] == 0.5
    assert pushed["acc_s"] == pytest.approx(1.0) and pushed["bleu4"] == pytest.approx(1.0)
    strict = prediction_scores(predicted, truth, encoder, threshold=0.95)
    assert strict == {"push_rate": 0.0, "acc_c": 0.0, "acc_s": 0.0, "bleu4": 0.0}


@pytest.mark.parametrize(("text", "message"), [
    ("Listen music", "not JSON"),
    ('{"Event": "Listen music"}', '"Behaviour"'),
    ('["Event", "Behaviour"]', '"Event"'),
])
def test_malformed_predictions_are_named(text, message):
    from mobileintent_gym.metrics.act2intent import parse_prediction

    with pytest.raises(ValueError, match=message):
        parse_prediction(text)
