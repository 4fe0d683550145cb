import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mobileintent_gym.actions import (
    DIRECTIONS,
    KEYS,
    MAX_TEXT_LENGTH,
    Action,
    ActionType,
    action_from_dict,
    action_space,
    action_to_dict,
    format_action,
    parse_action,
    to_action,
)
from mobileintent_gym.checks import xml_safe
from mobileintent_gym.errors import InvalidActionError, MobileIntentError

coords = st.integers(min_value=0, max_value=10_000)
texts = st.text(min_size=1, max_size=MAX_TEXT_LENGTH).filter(xml_safe)  # what keyboards type
actions = st.one_of(
    st.builds(Action.click, coords, coords),
    st.builds(Action.long_click, coords, coords),
    st.builds(Action.type_text, texts),
    st.builds(Action.swipe, st.sampled_from(DIRECTIONS)),
    st.builds(Action.press, st.sampled_from(KEYS)),
    st.just(Action.complete()),
)


@pytest.mark.parametrize("text, expected", [
    ("CLICK[344,217]", Action.click(344, 217)),
    ("LONG_CLICK[10,20]", Action.long_click(10, 20)),
    ("TYPE[coffee mugs]", Action.type_text("coffee mugs")),
    ("SWIPE[UP]", Action.swipe("UP")),
    ("PRESS[BACK]", Action.press("BACK")),
    ("COMPLETE", Action.complete()),
])
def test_canonical_strings_parse_and_format_back(text, expected):
    assert parse_action(text) == expected
    assert format_action(expected) == text


@pytest.mark.parametrize("text, expected", [
    ("PRESS_ENTER", Action.press("ENTER")),
    ("press_back", Action.press("BACK")),
    ("PRESS_HOME", Action.press("HOME")),
    ("click[344, 217]", Action.click(344, 217)),
    ("CLICK [ 1 ,2 ]", Action.click(1, 2)),
    ("swipe[down]", Action.swipe("DOWN")),
    ("type[Hello World]", Action.type_text("Hello World")),
    ("  COMPLETE  ", Action.complete()),
    ("Press[enter]", Action.press("ENTER")),
])
def test_variants_seen_in_the_wild_are_accepted(text, expected):
    assert parse_action(text) == expected


def test_type_text_keeps_brackets_spaces_and_newlines_verbatim():
    action = parse_action("TYPE[ a]b[c \n]")
    assert action.text == " a]b[c \n"
    assert parse_action(format_action(action)) == action


@given(actions)
def test_round_trip_is_exact_for_every_valid_action(action):
    text = format_action(action)
    assert parse_action(text) == action
    assert format_action(parse_action(text)) == text


@pytest.mark.parametrize("text, named", [
    ("CLICK[-1,5]", "-1"),
    ("CLICK[1.5,2]", "CLICK[1.5,2]"),
    ("SWIPE[NORTH]", "NORTH"),
    ("PRESS[MENU]", "MENU"),
    ("TYPE[]", "''"),
    ("JUMP[1,2]", "JUMP[1,2]"),
    ("COMPLETE[now]", "COMPLETE[now]"),
    ("CLICK[1,2", "CLICK[1,2"),
    ("", "''"),
    # The Kelvin sign matched "k" case-insensitively, then raised KeyError.
    ("CLIC\u212a[1,2]", "CLIC\u212a[1,2]"),
    ("PRESS_BAC\u212a", "PRESS_BAC\u212a"),
])
def test_malformed_strings_raise_naming_the_bad_value(text, named):
    with pytest.raises(InvalidActionError) as err:
        parse_action(text)
    assert named in str(err.value)
    assert isinstance(err.value, MobileIntentError)


@pytest.mark.parametrize("make, named", [
    (lambda: Action(ActionType.CLICK, x=-3, y=4), "-3"),
    (lambda: Action(ActionType.CLICK, x=True, y=4), "True"),
    (lambda: Action(ActionType.CLICK, x=1, y=2, text="x"), "text"),
    (lambda: Action(ActionType.TYPE, text="a" * (MAX_TEXT_LENGTH + 1)), "1001"),
    (lambda: Action(ActionType.TYPE, text=3), "3"),
    # Typed into a field, it was logged as the hit's text while the dump dropped it, and
    # a draft of "\x00" alone, blank on screen, was sent as a message.
    (lambda: Action(ActionType.TYPE, text="\x00hi"), r"'\\x00' \(U\+0000\), which no keyboard"),
    (lambda: Action(ActionType.TYPE, text="a\udc80"), r"U\+DC80"),
    (lambda: Action(ActionType.SWIPE, direction="diagonal"), "diagonal"),
    (lambda: Action(ActionType.PRESS, key=None), "None"),
    (lambda: Action(9), "9"),
    (lambda: Action(True), r"True; known: \['CLICK', 'LONG_CLICK'"),  # not LONG_CLICK
    (lambda: Action("TAP", x=1, y=2), "'TAP'"),
    (lambda: Action(1.0, x=1, y=2), "1.0"),
])
def test_invalid_dataclass_values_raise_at_construction(make, named):
    with pytest.raises(InvalidActionError, match=named):
        make()


@pytest.mark.parametrize("kind", [ActionType.CLICK, "CLICK", "click", 0, np.int64(0)])
def test_an_action_type_may_be_given_by_name_or_number(kind):
    action = Action(kind, x=1, y=2)
    assert action == Action.click(1, 2) and action.type is ActionType.CLICK


def test_check_inside_rejects_points_off_screen():
    Action.click(1079, 2399).check_inside(1080, 2400)
    with pytest.raises(InvalidActionError, match="1080,5"):
        Action.click(1080, 5).check_inside(1080, 2400)


@given(actions.filter(lambda a: a.text is None or (a.text.isascii() and a.text.isprintable())))
def test_dict_space_converts_both_ways(action):
    if action.x is not None and (action.x >= 1080 or action.y >= 2400):
        return
    space = action_space(1080, 2400)
    sample = action_to_dict(action)
    assert space.contains(sample)
    assert action_from_dict(sample) == action


def test_samples_of_the_space_become_actions_or_named_errors():
    space = action_space(1080, 2400)
    space.seed(0)
    kinds = set()
    for _ in range(300):
        sample = space.sample()
        try:
            kinds.add(action_from_dict(sample).type)
        except InvalidActionError as err:
            assert sample["type"] == ActionType.TYPE and "''" in str(err)
    assert kinds == set(ActionType)


def test_action_from_dict_rejects_broken_samples():
    with pytest.raises(InvalidActionError, match="point"):
        action_from_dict({"type": 0, "text": ""})
    with pytest.raises(InvalidActionError, match="7"):
        action_from_dict({"type": 3, "direction": np.int64(7)})
    # A key of no field was ignored: a misspelt one left its value unread.
    with pytest.raises(InvalidActionError, match=r"unknown key 'dir' \(keys: direction, key, "
                       r"point, text, type\)"):
        action_from_dict({"type": 3, "direction": 1, "dir": 2})


@pytest.mark.parametrize(("call", "error", "says"), [
    # Each failed deep inside: "'NoneType' object is not subscriptable", "'str' object has
    # no attribute 'type'", Gymnasium's Box bounds, "unsupported operand type(s) for -".
    (lambda: action_from_dict(None), InvalidActionError, "an action sample is a dict"),
    (lambda: action_from_dict("CLICK[1,2]"), InvalidActionError, "got 'CLICK.1,2.'"),
    (lambda: format_action(None), InvalidActionError, "not an action: None"),
    (lambda: action_to_dict(3), InvalidActionError, "not an action: 3"),
    (lambda: action_space(540, 0), ValueError, "height must be a positive integer, got 0"),
    (lambda: action_space("540", 1200), ValueError, "width must be a positive integer"),
])
def test_the_action_helpers_name_what_is_no_action(call, error, says):
    with pytest.raises(error, match=says):
        call()


def test_an_actions_string_is_formatted_and_sampled_as_the_action_is():
    assert format_action(" click[1, 2]\n") == "CLICK[1,2]" == format_action(Action.click(1, 2))
    sample = action_to_dict("swipe[up]")
    assert action_from_dict(sample) == Action.swipe("up")


def test_the_keys_an_action_sample_may_have_are_the_action_spaces():
    assert set(action_space(100, 100).spaces) == set(action_to_dict(Action.complete()))
    assert action_from_dict(action_to_dict(Action.swipe("up"))) == Action.swipe("up")


@pytest.mark.parametrize("text", [
    "CLICK[" + "9" * 5000 + ",1]",
    "CLICK[1234567890,1]",
    "CLICK[١٢,٣]",
    "CLICK[１,２]",
])
def test_huge_or_non_ascii_numbers_are_invalid_actions(text):
    with pytest.raises(InvalidActionError):
        parse_action(text)


def test_trailing_newline_is_accepted_for_every_action_type():
    assert parse_action("TYPE[hello]\r\n") == Action.type_text("hello")
    assert parse_action("CLICK[1,2]\n") == Action.click(1, 2)
    assert parse_action("TYPE[a] ") == Action.type_text("a")


@pytest.mark.parametrize("sample, named", [
    ({"type": 3, "direction": -1}, "-1"),
    ({"type": 4, "key": -2}, "-2"),
    ({"type": 2.7, "text": "x"}, "2.7"),
    ({"type": True, "point": [1, 2]}, "True"),
    ({"type": 0, "point": np.array([1.9, 2.7])}, "1.9"),
    ({"type": 0, "point": [1, 2, 3]}, "[1, 2, 3]"),
    ({"type": 0, "point": [[1], [1, 2]]}, "[[1], [1, 2]]"),  # NumPy's ValueError escaped
    ({"type": 9}, "9"),
])
def test_action_from_dict_rejects_wrong_kinds_of_values(sample, named):
    with pytest.raises(InvalidActionError) as err:
        action_from_dict(sample)
    assert named in str(err.value)


HUGE = 10 ** 5000  # Python refuses to write an integer of over 4,300 digits (ValueError)


@pytest.mark.parametrize("make, named", [
    (lambda: action_from_dict({"type": 0, "point": [HUGE, 1]}), "integer too long to write"),
    (lambda: action_from_dict({"type": 3, "direction": HUGE}), "integer too long to write"),
    (lambda: Action.click(HUGE, 1), "integer too long to write"),
    (lambda: Action(ActionType.SWIPE, direction=HUGE), "integer too long to write"),
    (lambda: parse_action("Z" * 5_000_000), "not an action: 'ZZZZ"),
    (lambda: parse_action("CLICK[" + "9" * 5000 + ",1]"), "malformed CLICK arguments"),
    (lambda: to_action(["Z" * 5_000_000]), "not an action: ['ZZZZ"),
    # An array compared item by item: ValueError ("truth value ... is ambiguous").
    (lambda: Action.press(np.array(["HOME", "BACK"])), "PRESS key must be one of"),
    (lambda: Action.swipe(np.array(["UP", "UP"])), "SWIPE direction must be one of"),
])
def test_a_huge_value_is_named_in_a_short_message(make, named):
    # The integer raised ValueError from inside the message (a crash that lost the
    # episode); a long string went whole into the message and every step's info.
    with pytest.raises(InvalidActionError, match=re.escape(named)) as err:
        make()
    assert len(str(err.value)) < 200


def test_action_space_text_is_ascii_only_as_documented():
    space = action_space(1080, 2400)
    assert not space.contains(action_to_dict(Action.type_text("é")))


def test_coordinates_are_bounded_so_every_action_reads_back_from_its_string():
    from mobileintent_gym.actions import MAX_COORDINATE, format_action

    edge = Action.click(MAX_COORDINATE, 5)
    assert parse_action(format_action(edge)) == edge
    with pytest.raises(InvalidActionError, match=r"x must be in \[0, 999999999\], got 1000000000"):
        Action.click(MAX_COORDINATE + 1, 5)
    with pytest.raises(InvalidActionError, match="y must be in"):
        Action(ActionType.LONG_CLICK, x=1, y=-1)
