import numpy as np
import pytest

from mobileintent_gym.checks import is_digits, is_integer, is_number


@pytest.mark.parametrize(("value", "integer", "number"), [
    (3, True, True), (np.int64(-2), True, True), (np.uint8(7), True, True),
    (True, False, False), (np.bool_(True), False, False), (3.0, False, True),
    (np.float32(0.5), False, True), (float("nan"), False, True), ("3", False, False),
    (None, False, False), (3 + 0j, False, False), (np.array(3), False, False),
])
def test_integers_and_numbers_are_told_apart_from_bools_and_strings(value, integer, number):
    assert (is_integer(value), is_number(value)) == (integer, number)


@pytest.mark.parametrize(("text", "digits"), [
    ("0", True), ("0042", True), ("", False), ("²", False), ("٣", False), ("-1", False),
    (" 1", False), ("1.0", False), ("9" * 18, True), ("1" * 19, False), ("1" * 5000, False),
])
def test_digits_are_plain_ascii_numbers_int_reads(text, digits):
    assert is_digits(text) == digits
