"""Acc-G and the alignment behind Acc-S/BLEU-4 on hand-built segmentations."""

import re

import numpy as np
import pytest

from mobileintent_gym.errors import InvalidArgumentError
from mobileintent_gym.metrics.act2intent import (
    Prediction,
    aligned_texts,
    goal_accuracy,
    prediction_scores,
    spans,
    understanding_scores,
)
from mobileintent_gym.metrics.execution import step_success_rate
from mobileintent_gym.metrics.pira import pira_scores
from mobileintent_gym.metrics.text import (
    bleu4,
    mean_bleu4,
    pair_similarities,
    semantic_similarity,
)
from mobileintent_gym.users import LexicalEncoder

TRUTH = {"System settings adjustment": [1, 2, 3], "Shooting mode configuration": [4, 5],
         "Reply to Mum": [6, 7, 8]}


def test_acc_g_compares_the_ith_prediction_with_the_ith_truth():
    # The study's Acc-G compares the i-th predicted intention's start and end indices
    # with the i-th true intention's (its evaluation code zips them in order).
    predicted = {"Adjust settings": [1, 2, 3], "Camera mode": [4, 5, 6], "Message": [7, 8]}
    assert goal_accuracy(predicted, TRUTH) == pytest.approx(1 / 3)
    assert goal_accuracy(TRUTH, TRUTH) == 1.0
    assert goal_accuracy({"Everything": [1, 8]}, TRUTH) == 0.0


def test_one_extra_segment_in_front_shifts_every_pair_and_scores_zero():
    predicted = {"Unlock the phone": [1], **TRUTH}
    # Position i holds (1,1), (1,3), (4,5) against (1,3), (4,5), (6,8): no pair matches.
    assert goal_accuracy(predicted, TRUTH) == 0.0
    # The lenient overlap pairing is kept as a named option: all three spans exist.
    assert goal_accuracy(predicted, TRUTH, pairing="overlap") == 1.0
    with pytest.raises(ValueError, match="pairing"):
        goal_accuracy(predicted, TRUTH, pairing="best")


def test_texts_pair_by_position_and_missing_predictions_get_none():
    predicted = {"Adjust settings": [1, 2], "Camera mode": [3, 4, 5]}
    assert aligned_texts(predicted, TRUTH) == [
        ("Adjust settings", "System settings adjustment"),
        ("Camera mode", "Shooting mode configuration"),
        (None, "Reply to Mum")]
    shifted = {"Unlock": [1], **TRUTH}
    assert [p for p, _ in aligned_texts(shifted, TRUTH)] == [
        "Unlock", "System settings adjustment", "Shooting mode configuration"]
    assert [p for p, _ in aligned_texts(shifted, TRUTH, pairing="overlap")] == list(TRUTH)


def test_understanding_scores_average_over_true_intentions():
    encoder = LexicalEncoder()
    perfect = understanding_scores(TRUTH, TRUTH, encoder)
    assert perfect["acc_g"] == 1.0
    assert perfect["acc_s"] == pytest.approx(1.0) and perfect["bleu4"] == pytest.approx(1.0)
    partial = understanding_scores({"System settings adjustment": [1, 2, 3]}, TRUTH, encoder)
    assert partial["acc_g"] == pytest.approx(1 / 3)
    assert partial["acc_s"] == pytest.approx(1 / 3) and partial["bleu4"] == pytest.approx(1 / 3)
    # Shifted by one: each true text meets another text, so Acc-S and BLEU-4 drop below
    # what the overlap pairing (every text exact) gives.
    shifted = {"Unlock": [1], **TRUTH}
    by_position = understanding_scores(shifted, TRUTH, encoder)
    by_overlap = understanding_scores(shifted, TRUTH, encoder, pairing="overlap")
    said = ["Unlock", *list(TRUTH)[:2]]
    expected = sum(bleu4(p, t) for p, t in zip(said, TRUTH, strict=True)) / 3
    assert by_position["bleu4"] == pytest.approx(expected) and expected < 0.5
    assert by_overlap["bleu4"] == pytest.approx(1.0) and by_position["acc_s"] < 0.5


@pytest.mark.parametrize("bad", [{"x": [0, 1]}, {"x": []}, {"x": ["1"]}, {"x": [True]},
                                 {"x": 3}, {"x": np.array([0, 2])}])
def test_bad_indices_are_named(bad):
    with pytest.raises(ValueError, match="segment 'x'"):
        spans(bad)


def test_numpy_indices_are_read_like_a_list():
    # An array raised "truth value of an array is ambiguous".
    assert spans({"x": np.array([3, 1, 2])}) == [("x", 1, 3)]


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
    assert action_matches(Action.type_text(" Rainy Night "), Action.type_text("Rainy Night"),
                          None, size)
    # The task's judge reads the field's text exactly: another case or inner spacing fails
    # the reply, so it matches no reference step either.
    assert not action_matches(Action.type_text("understood"), Action.type_text("Understood"),
                              None, size)
    assert not action_matches(Action.type_text("Rainy  Night"), Action.type_text("Rainy Night"),
                              None, size)
    assert not action_matches(Action.swipe("UP"), Action.swipe("DOWN"), None, size)
    assert action_matches(Action.press("BACK"), Action.press("BACK"), None, size)
    assert action_matches(Action.complete(), Action.complete(), None, size)
    assert step_success_rate([[True, False], [True, True, True, False]]) == pytest.approx(
        (0.5 + 0.75) / 2)
    assert step_success_rate([]) is None


def test_overlap_alignment_ties_go_to_the_earlier_span():
    predicted = {"later": [4, 5], "earlier": [1, 2]}
    assert aligned_texts(predicted, {"truth": [2, 4]}, pairing="overlap") == [
        ("earlier", "truth")]


def test_prediction_scores_with_and_without_the_confidence_fallback():
    from mobileintent_gym.metrics.act2intent import (
        EVENT_CLASSES,
        PUSH_THRESHOLD,
        STRICT_PUSH_THRESHOLD,
        Prediction,
        parse_prediction,
        prediction_scores,
    )

    assert len(EVENT_CLASSES) == 20 and (PUSH_THRESHOLD, STRICT_PUSH_THRESHOLD) == (0.6, 0.8)
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
    # Nothing pushed: the scores over pushed cases are undefined, not 0.
    strict = prediction_scores(predicted, truth, encoder, threshold=0.95)
    assert strict == {"push_rate": 0.0, "pushed": 0, "unreadable": 0,
                      "acc_c": None, "acc_s": None, "bleu4": None}
    assert prediction_scores([], [], encoder)["push_rate"] is None


def test_saved_answers_scored_offline_are_pushed_by_their_own_confidence():
    # parse_prediction gave every answer confidence 1 unless told one: scored at 0.60,
    # saved answers of 0.9 and 0.2 were both pushed (the env's own reader used 0.9, 0.2).
    from mobileintent_gym.metrics.act2intent import Prediction, parse_prediction, prediction_scores

    truth = [Prediction("Listen music", "Play jazz")] * 2
    answers = ['{"Event": "Listen music", "Behaviour": "Play jazz", "Confidence": 0.9}',
               '{"Event": "Chatting", "Behaviour": "Reply to Mum", "confidence": 0.2}']
    read = [parse_prediction(a) for a in answers]
    assert [p.confidence for p in read] == [0.9, 0.2]
    scores = prediction_scores(read, truth, LexicalEncoder(), threshold=0.6)
    assert scores["push_rate"] == 0.5 and scores["acc_c"] == 1.0
    assert parse_prediction(answers[1], 0.7).confidence == 0.7  # one given overrides it
    assert parse_prediction("no object", 0.7).confidence == 0.7


@pytest.mark.parametrize("confidence", [float("nan"), 1.5, -1.0, "0.9", True])
def test_a_confidence_given_that_is_no_number_in_0_1_is_named(confidence):
    # NaN was taken and never pushed, without a word; 1.5 and -1 were taken as they were.
    from mobileintent_gym.metrics.act2intent import parse_prediction

    with pytest.raises(ValueError, match=re.escape(
            f"confidence must be a number in [0, 1] or None, got {confidence!r}")):
        parse_prediction('{"Event": "A", "Behaviour": "x"}', confidence)


@pytest.mark.parametrize("text", [
    '{"Event": "Listen music", "Behaviour": "Play jazz"}',
    '{"event": "Listen music", "behavior": "Play jazz"}',
    '{"EVENT": "Listen music", "Behavior": "Play jazz"}',
    'Sure! Here is my guess:\n```json\n{"Event": "Listen music",\n "Behaviour": "Play jazz"}'
    '\n```\nHope it helps {not json}.',
    # Lenient beyond the study's reader, as every reader of answers is (first_json_object):
    "{'Event': 'Listen music', 'Behaviour': 'Play jazz',}",
    '{"ignored": 1} ```\n{"Event": "Listen music", "Behaviour": "Play jazz",}\n```',
    # A fence of prose before the object (a model's reasoning) does not hide it.
    'Reasoning:\n```\nthe user plays jazz every morning\n```\n'
    '{"Event": "Listen music", "Behaviour": "Play jazz"}',
    '```text\nno object here\n```\n```json\n{"Event": "Listen music", "Behaviour": "Play jazz"}'
    '\n```',
    # Doubled braces, as copied from a prompt template (Python reads a set of a dict).
    '{{"Event": "Listen music", "Behaviour": "Play jazz"}}',
])
def test_the_parser_reads_what_the_studys_parser_reads(text):
    # The study's parser takes the first JSON object in the answer and accepts
    # "Event"/"event" and "Behaviour"/"behaviour"/"Behavior"/"behavior".
    from mobileintent_gym.metrics.act2intent import Prediction, parse_prediction

    assert parse_prediction(text, 0.7) == Prediction("Listen music", "Play jazz", 0.7)


@pytest.mark.parametrize("text", [
    "{'Event': 'Chatting', 'Behaviour': 'Reply with :} to Mum'}",
    "Guess: {'Event': 'Chatting', 'Behaviour': \"Reply to Mum's {joke}\"} done",
])
def test_braces_inside_quoted_python_style_text_do_not_end_the_object(text):
    from mobileintent_gym.metrics.act2intent import parse_prediction

    answer = parse_prediction(text)
    assert answer.error is None and answer.event == "Chatting"
    assert answer.behaviour.startswith("Reply") and "}" in answer.behaviour


@pytest.mark.parametrize("text", ["{{}}", "{{'a': 1}: 2}", "{[]: 1}", "{'a': {1, [2]}}"])
def test_literals_python_cannot_build_are_unreadable_not_errors(text):
    from mobileintent_gym.metrics.act2intent import parse_prediction

    assert parse_prediction(text).error is not None


@pytest.mark.parametrize(("text", "reason", "acc_c", "text_score"), [
    ("Listen music", "no JSON object", 0.5, 0.5),
    ('{"Event": "Listen music"}', "no Behaviour", 1.0, 0.5),
    ('["Event", "Behaviour"]', "no JSON object", 0.5, 0.5),
    ('{"Event": 3, "Behaviour": "Play jazz"}', "Event is 3, not text", 0.5, 1.0),
])
def test_unreadable_answers_are_kept_with_the_reason_and_scored_as_wrong(text, reason, acc_c,
                                                                         text_score):
    from mobileintent_gym.metrics.act2intent import (
        Prediction,
        parse_prediction,
        prediction_scores,
    )

    answer = parse_prediction(text)
    assert reason in answer.error
    scores = prediction_scores([answer, Prediction("Chatting", "Reply to Mum")],
                               [Prediction("Listen music", "Play jazz"),
                                Prediction("Chatting", "Reply to Mum")], LexicalEncoder())
    # Counted among the pushed answers, never skipped: a missing part scores as wrong,
    # a part that could be read scores as it is.
    assert scores["pushed"] == 2 and scores["unreadable"] == 1
    assert scores["acc_c"] == acc_c
    assert scores["bleu4"] == pytest.approx(text_score)
    assert scores["acc_s"] == pytest.approx(text_score)


def test_ssr_averages_over_every_task_and_a_task_without_steps_scores_one():
    from mobileintent_gym.metrics.act2intent import step_success_rate

    # SSR = mean over tasks of matched steps / steps; a task whose goal already holds
    # (no reference step) is counted and cannot be missed: 1.0.
    assert step_success_rate([[True, False], []]) == pytest.approx((0.5 + 1.0) / 2)
    assert step_success_rate([]) is None


def test_acc_s_is_a_cosine_whatever_scale_the_encoder_returns():
    import numpy as np

    from mobileintent_gym.metrics.text import semantic_similarity

    class Unnormalised:
        def encode(self, texts):
            table = {"a": [3.0, 4.0], "b": [0.0, 10.0], "z": [0.0, 0.0]}
            return np.array([table[t] for t in texts])

    # cos((3,4), (0,10)) = 40 / (5 * 10) = 0.8; a zero vector has similarity 0.
    assert semantic_similarity(["a"], ["b"], Unnormalised()) == pytest.approx(0.8)
    assert semantic_similarity(["a", "z"], ["a", "b"], Unnormalised()) == pytest.approx(0.5)


def test_an_answer_of_many_stray_braces_is_searched_at_a_bounded_number_of_them(monkeypatch):
    # Each '{' was tried, each try reading to the text's end (see MAX_OBJECT_STARTS).
    import json

    from mobileintent_gym.metrics import prediction

    tries = []
    decoder = json.JSONDecoder()
    raw_decode = decoder.raw_decode
    monkeypatch.setattr(decoder, "raw_decode", lambda text: tries.append(1) or raw_decode(text))
    assert prediction._search("{ " * 10_000, decoder) is None
    assert len(tries) <= 2 * prediction.MAX_OBJECT_STARTS
    found = prediction.first_json_object("{ " * 10 + '{"Event": "Chatting"}')
    assert found == {"Event": "Chatting"}  # an object after a few stray braces is found


def test_the_places_tried_are_bounded_over_all_fences_together(monkeypatch):
    # Each fence had its own MAX_OBJECT_STARTS: 45,000 fences of "{'a': 1" took 7 s.
    from mobileintent_gym.metrics import prediction

    tried = []
    object_at = prediction._object_at
    monkeypatch.setattr(prediction, "_object_at",
                        lambda chunk, decoder: tried.append(1) or object_at(chunk, decoder))
    assert prediction.first_json_object("```\n{'a': 1```\n" * 1000) is None
    assert len(tried) == prediction.MAX_OBJECT_STARTS


def test_a_python_style_object_is_read_up_to_its_length_limit():
    # An unclosed "{'" was scanned to the answer's end at every try (a megabyte: 4 s).
    from mobileintent_gym.metrics.prediction import MAX_LITERAL_LENGTH, first_json_object

    def literal(length):
        return "{'Event': '" + "x" * (length - len("{'Event': ''}")) + "'}"

    assert first_json_object(literal(MAX_LITERAL_LENGTH)) == {
        "Event": "x" * (MAX_LITERAL_LENGTH - 13)}
    assert first_json_object(literal(MAX_LITERAL_LENGTH + 1)) is None


def test_prose_braces_do_not_use_up_the_places_an_object_is_looked_for():
    # 64 "{name}" braces before the object made it "no JSON object in the answer".
    from mobileintent_gym.metrics.prediction import Prediction, parse_prediction

    answer = "I used the template {name} " * 100 + '{"Event": "Message", "Behaviour": "Hi"}'
    assert parse_prediction(answer) == Prediction("Message", "Hi")


def test_composed_and_decomposed_accents_are_one_text():
    from mobileintent_gym.actions import Action
    from mobileintent_gym.metrics.act2intent import action_matches

    assert bleu4("Order a caf\u00e9 latte", "Order a cafe\u0301 latte") == 1.0
    assert action_matches(Action.type_text("Caf\u00e9"), Action.type_text("Cafe\u0301"),
                          None, (1080, 2400))


def test_a_truth_without_a_behaviour_or_an_event_is_named():
    from mobileintent_gym.metrics.prediction import Prediction, parse_prediction, prediction_scores

    with pytest.raises(ValueError, match="needs an event and a behaviour"):
        prediction_scores([Prediction("Message", "x")], [Prediction("Message", None)],
                          LexicalEncoder())
    # An unreadable answer's event is empty: against an empty true event it scored Acc-C 1.
    with pytest.raises(ValueError, match=r"needs an event and a behaviour.*'x'"):
        prediction_scores([parse_prediction("garbage")], [Prediction("", "x")],
                          LexicalEncoder())


@pytest.mark.parametrize(("call", "error", "says"), [
    (lambda: spans('{"Order a latte": [1, 2, 3]}'), ValueError, "not text"),
    (lambda: spans({5: [1, 2, 3]}), ValueError, r"\(text, indices\) pair, got \(5"),
    (lambda: spans([("Order a latte",)]), ValueError, "pair, got"),
    (lambda: prediction_scores([{"Event": "a", "Behaviour": "b"}], [Prediction("a", "b")],
                               LexicalEncoder()), InvalidArgumentError, "got dict"),
    (lambda: prediction_scores([Prediction("a", "b")], [Prediction("a", "b")],
                               LexicalEncoder(), threshold=60), ValueError, "got 60"),
    (lambda: mean_bleu4([None], ["x"]), InvalidArgumentError, "got NoneType"),
    (lambda: pira_scores([{"Intent": "x"}], ["x"]), InvalidArgumentError, "got dict"),
])
def test_the_scores_name_inputs_of_the_wrong_kind(call, error, says):
    # They failed deep inside ("not enough values to unpack", "'dict' object has no
    # attribute 'error'", "normalize() argument 2 must be str"), or, for a percentage
    # given as the threshold, pushed nothing without a word.
    with pytest.raises(error, match=says):
        call()


@pytest.mark.parametrize(("call", "says"), [
    # Scored as if right: a count of 2 matched steps of 2 lifted SSR above 1, NaN made it
    # NaN, one text was scored one character per item, a prediction's confidence of 1.5
    # was always pushed and NaN never.
    (lambda: step_success_rate([[2, 3]]), "task 0's step matches: item 0 must be True or "
                                          "False, got int 2"),
    (lambda: step_success_rate([[True], [np.nan]]), "task 1's step matches: item 0"),
    (lambda: step_success_rate([True]), "task 0's step matches must be a list or other"),
    (lambda: mean_bleu4("hello", "world"), "candidates must be a list .* got str 'hello'"),
    (lambda: semantic_similarity(["ab"], "ab", LexicalEncoder()), "truth must be a list or "),
    (lambda: pair_similarities([None], ["x"], LexicalEncoder()),
     "predicted: item 0 must be a str, got NoneType"),
    (lambda: pira_scores("ab", "ab"), "predictions must be a list or other collection"),
    (lambda: Prediction("e", "b", float("nan")), "confidence must be a number in .*got nan"),
    (lambda: Prediction("e", "b", 1.5), "got 1.5"),
    (lambda: Prediction("e", 3), "behaviour must be a str or None, got int 3"),
    # These failed deep inside ("'>=' not supported", "'NoneType' object is not iterable").
    (lambda: Prediction("e", "b", None), "confidence must be a number in .*got None"),
])
def test_the_scores_refuse_inputs_they_would_score_as_something_else(call, says):
    with pytest.raises(InvalidArgumentError, match=says):
        call()


def test_the_scores_take_any_collection_and_ssr_any_iterable():
    # As before their checks: a dict's values, a generator of tasks.
    texts = {"a": "hello"}
    assert mean_bleu4(texts.values(), texts.values()) == 1.0
    assert step_success_rate(iter([[True, False]])) == 0.5
    with pytest.raises(InvalidArgumentError, match="matches must be a list or other iterable"):
        step_success_rate(None)
    with pytest.raises(InvalidArgumentError, match=r"candidates must be .* got ndarray"):
        mean_bleu4(np.array("x"), ["x"])  # iterating it raised "iteration over a 0-d array"


def test_a_segmentation_that_is_none_is_named():
    with pytest.raises(ValueError, match=r"a mapping or .* got NoneType None"):
        goal_accuracy(None, TRUTH)


class SameVector:
    """Every text the same vector: Acc-S is 1 whatever is compared."""

    name = "same"

    def encode(self, texts):
        return np.ones((len(texts), 3))


@pytest.mark.parametrize("threshold", [0.6, 0.8])
def test_a_confidence_equal_to_the_threshold_is_pushed(threshold):
    # Models often answer exactly 0.6 or 0.8: "at least" the threshold pushes.
    truth = [Prediction("Message", "reply to Mum")]
    at = prediction_scores([Prediction("Message", "reply to Mum", threshold)], truth,
                           SameVector(), threshold=threshold)
    assert (at["pushed"], at["acc_c"]) == (1, 1.0)
    below = prediction_scores([Prediction("Message", "reply to Mum", threshold - 1e-9)], truth,
                              SameVector(), threshold=threshold)
    assert below["pushed"] == 0


def test_unreadable_counts_the_pushed_answers_only_and_classes_match_exactly():
    truth = [Prediction("Message", "reply to Mum")] * 2
    answers = [Prediction("Message", "reply to Mum", 0.9),
               Prediction("", None, 0.0, "no JSON object")]  # not pushed at 0.6
    scores = prediction_scores(answers, truth, SameVector(), threshold=0.6)
    assert (scores["pushed"], scores["unreadable"]) == (1, 0)
    assert prediction_scores(answers, truth, SameVector())["unreadable"] == 1
    lower = prediction_scores([Prediction("message", "reply to Mum")], truth[:1], SameVector())
    assert lower["acc_c"] == 0.0  # a class is one of a fixed list: exact, case included


def test_acc_g_is_over_the_true_intentions_whatever_else_is_predicted():
    predicted = [("a", [1, 2]), ("b", [3]), ("c", [4])]
    assert goal_accuracy(predicted, [("A", [1, 2]), ("B", [3])]) == 1.0
    assert goal_accuracy(predicted[:1], [("A", [1, 2]), ("B", [3])]) == 0.5


def test_overlap_pairing_leaves_a_true_span_nothing_overlaps_unpaired():
    assert aligned_texts({"a": [5, 6]}, {"b": [1, 2]}, pairing="overlap") == [(None, "b")]


def test_key_presses_match_by_their_key():
    from mobileintent_gym.actions import Action
    from mobileintent_gym.metrics.act2intent import action_matches

    assert not action_matches(Action.press("HOME"), Action.press("BACK"), None, (1080, 2400))
    assert action_matches(Action.press("HOME"), Action.press("HOME"), None, (1080, 2400))
