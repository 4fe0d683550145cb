"""PIRA-Bench's S_final on a hand-computed trajectory."""

import pytest

from mobileintent_gym.metrics.pira import pira_scores

#        turn:   1        2       3       4        5       6
GOLD = [None, "Book a taxi", None, "Reply to Mum", None, "Buy milk"]
PRED = [None, "book a  TAXI", "Play music", None, None, "Buy bread"]


def test_counts_and_s_final():
    s = pira_scores(PRED, GOLD)
    # tp: turn 2 (same after normalisation); fp: turn 3 (intent on noise), turn 6 (wrong
    # intent); fn: turn 4; noise turns: 1, 3, 5.
    assert (s.tp, s.fp, s.fn, s.noise) == (1, 2, 1, 3)
    assert s.precision == pytest.approx(1 / 3) and s.recall == pytest.approx(1 / 2)
    f1 = 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)
    assert s.f1 == pytest.approx(f1)
    assert s.fps_norm == pytest.approx(1 - 2 / 3)
    assert s.s_final == pytest.approx(f1 / 3)


def test_restraint_on_noise_is_perfect_and_over_proactivity_is_punished():
    quiet = pira_scores([None, "Book a taxi"], [None, "Book a taxi"])
    assert quiet.s_final == 1.0
    eager = pira_scores(["Book a taxi", "Book a taxi"], [None, "Book a taxi"])
    assert eager.recall == 1.0 and eager.fps_norm == 0.0 and eager.s_final == 0.0


def test_a_custom_judge_and_length_mismatch():
    assert pira_scores(["taxi"], ["Book a taxi"], same=lambda p, g: p in g.lower()).tp == 1
    with pytest.raises(ValueError, match="2 predictions for 1 gold"):
        pira_scores([None, None], [None])


def test_false_pushes_beyond_the_noise_turns_drive_fps_norm_below_zero():
    s = pira_scores(["a", "b", "c", None], ["a", "x", "y", None])
    assert (s.fp, s.noise) == (2, 1) and s.fps_norm == -1.0 and s.s_final < 0


def test_an_intent_in_composed_or_decomposed_unicode_is_the_same_and_s_final_is_never_minus_0():
    assert pira_scores(["Caf\u00e9 order"], ["Cafe\u0301  ORDER"]).tp == 1
    s = pira_scores(["x", "y", "z"], [None, None, "a"])  # F1 0, FPS_norm below 0
    assert s.f1 == 0 and s.fps_norm < 0 and str(s.s_final) == "0.0"
