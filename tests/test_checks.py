import numpy as np
import pytest

from mobileintent_gym.checks import is_count, is_digits, is_finite, is_integer, is_number


@pytest.mark.parametrize(("value", "integer", "number"), [
    (3, True, True), (np.int64(-2), True, True), (np.uint8(7), True, True),
    (True, False, False), (np.bool_(True), False, False), (3.0, False, True),
    (np.float32(0.5), False, True), (float("nan"), False, True), ("3", False, False),
    (None, False, False), (3 + 0j, False, False), (np.array(3), False, False),
])
def test_integers_and_numbers_are_told_apart_from_bools_and_strings(value, integer, number):
    assert (is_integer(value), is_number(value)) == (integer, number)


@pytest.mark.parametrize(("value", "least", "count"), [
    (1, 1, True), (0, 1, False), (0, 0, True), (-1, 0, False), (np.int32(5), 1, True),
    (True, 1, False), (2.0, 1, False), ("3", 1, False),
])
def test_counts_are_integers_of_at_least_the_least(value, least, count):
    assert is_count(value, least=least) == count


@pytest.mark.parametrize(("value", "finite"), [
    (0, True), (-2.5, True), (np.float32(1e30), True), (float("inf"), False),
    (float("-inf"), False), (float("nan"), False), (np.float64("nan"), False), (True, False),
    ("1", False),
])
def test_finite_numbers_exclude_inf_nan_and_bools(value, finite):
    assert is_finite(value) == finite


@pytest.mark.parametrize(("text", "digits"), [
    ("0", True), ("0042", True), ("", False), ("²", False), ("٣", False), ("-1", False),
    (" 1", False), ("1.0", False), ("9" * 18, True), ("1" * 19, False), ("1" * 5000, False),
])
def test_digits_are_plain_ascii_numbers_int_reads(text, digits):
    assert is_digits(text) == digits
