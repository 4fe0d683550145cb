"""Characters as a reader sees them: where Backspace, the field limit and fitting cut."""

import unicodedata

import pytest

from mobileintent_gym.phone.characters import count, cut_after, cut_before, folded, last_character
from mobileintent_gym.phone.paint import fit_end

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


@pytest.mark.parametrize("character", [
    "\u2764\ufe0f",  # a heart with its emoji selector: Backspace left the selector alone
    "\U0001f44d\U0001f3ff",  # the darkest skin tone
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland
    "e\u0301", FAMILY, "\U0001f1eb\U0001f1f7",
])
def test_a_character_is_one_whatever_its_code_points(character):
    text = f"a{character}"
    assert last_character(text) == 1 and count(text) == 2
    assert [cut_before(text, i) for i in range(len(text) + 1)] == [0, 1] + [1] * (
        len(character) - 1) + [len(text)]
    assert [cut_after(text, i) for i in range(len(text) + 1)] == [0, 1] + [len(text)] * len(
        character)


def test_cuts_at_the_ends_are_the_ends():
    assert cut_before("abc", 3) == 3 and cut_before("abc", 0) == 0 and cut_after("abc", 3) == 3
    assert count("") == 0 and count("abc") == 3


def test_an_edit_field_s_shown_end_starts_with_a_whole_character():
    shown = fit_end("Caf" + "e\u0301" * 40, 40, 300)
    assert shown[0] == "…" and unicodedata.category(shown[1]) != "Mn"


def test_a_search_folds_case_accents_written_apart_and_runs_of_white_space():
    assert folded("  Coffee \t SHOP\u00a0") == "coffee shop"
    assert folded("Reggaeto\u0301n Straße") == folded("REGGAETÓN STRASSE")
