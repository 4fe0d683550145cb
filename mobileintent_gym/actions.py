"""The Act2Intention action model: dataclass, string format and Gymnasium space.

Actions are in device pixels, exactly as the study writes them::

    CLICK[344,217]  LONG_CLICK[10,20]  TYPE[coffee mugs]  SWIPE[UP]  PRESS[BACK]  COMPLETE

``COMPLETE`` is the agent declaring the intention done. Variants seen in agents' outputs
(``PRESS_ENTER``, lower case, spaces after commas) are accepted by :func:`parse_action`;
:func:`format_action` always writes the canonical form, and ``parse(format(a)) == a``.
"""

from __future__ import annotations

import enum
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import concatenate, create_empty_array

from mobileintent_gym.checks import is_integer, positive_integer, xml_invalid
from mobileintent_gym.errors import InvalidActionError, brief

MAX_TEXT_LENGTH = 1000
MAX_COORDINATE = 999_999_999
"""The largest pixel coordinate an action takes: nine digits, as its string form reads."""
DIRECTIONS = ("UP", "DOWN", "LEFT", "RIGHT")
KEYS = ("HOME", "BACK", "ENTER")


class ActionType(enum.IntEnum):
    """The six kinds of action an agent can take."""

    CLICK = 0
    LONG_CLICK = 1
    TYPE = 2
    SWIPE = 3
    PRESS = 4
    COMPLETE = 5


_FIELDS = {
    ActionType.CLICK: ("x", "y"),
    ActionType.LONG_CLICK: ("x", "y"),
    ActionType.TYPE: ("text",),
    ActionType.SWIPE: ("direction",),
    ActionType.PRESS: ("key",),
    ActionType.COMPLETE: (),
}


def _check_coordinate(name: str, value: object) -> None:
    if not is_integer(value):
        raise InvalidActionError(f"{name} must be an integer pixel, got {brief(value)}")
    if not 0 <= value <= MAX_COORDINATE:
        raise InvalidActionError(f"{name} must be in [0, {MAX_COORDINATE}], got {brief(value)}")


def _action_type(value: object) -> ActionType:
    """An :class:`ActionType` from itself, its number or its name (any case)."""
    if type(value) is ActionType:  # every step's action: nothing to look up
        return value
    if isinstance(value, str) and value.upper() in ActionType.__members__:
        return ActionType[value.upper()]
    if is_integer(value) and value in ActionType._value2member_map_:
        return ActionType(value)
    raise InvalidActionError(f"unknown action type {brief(value)}; known: "
                             f"{[kind.name for kind in ActionType]} (or their numbers)")


@dataclass(frozen=True, slots=True)
class Action:
    """One validated action. Fields that the type does not use must stay ``None``.

    Attributes:
        type: The kind of action (an :class:`ActionType`, its name such as ``"CLICK"``, or
            its number).
        x: Horizontal device pixel (CLICK, LONG_CLICK).
        y: Vertical device pixel (CLICK, LONG_CLICK).
        text: Text to type, 1 to 1,000 characters, none of them one XML cannot carry
            (NUL and other control characters but tab and newlines; TYPE).
        direction: ``UP``, ``DOWN``, ``LEFT`` or ``RIGHT``; ``UP`` moves the finger up and so
            reveals content further down (SWIPE).
        key: ``HOME``, ``BACK`` or ``ENTER`` (PRESS).
    """

    type: ActionType
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    key: str | None = None

    def __post_init__(self) -> None:
        kind = _action_type(self.type)
        object.__setattr__(self, "type", kind)
        used = _FIELDS[kind]
        for name in ("x", "y", "text", "direction", "key"):
            if name not in used and getattr(self, name) is not None:
                raise InvalidActionError(
                    f"{kind.name} takes no {name}, got {name}={brief(getattr(self, name))}"
                )
        getattr(self, f"_check_{kind.name.lower()}", lambda: None)()

    def _check_click(self) -> None:
        _check_coordinate("x", self.x)
        _check_coordinate("y", self.y)
        object.__setattr__(self, "x", int(self.x))
        object.__setattr__(self, "y", int(self.y))

    _check_long_click = _check_click

    def _check_type(self) -> None:
        if not isinstance(self.text, str) or not self.text:
            raise InvalidActionError(f"TYPE needs non-empty text, got {brief(self.text)}")
        if len(self.text) > MAX_TEXT_LENGTH:
            raise InvalidActionError(
                f"TYPE text is {len(self.text)} characters, more than {MAX_TEXT_LENGTH}: "
                f"{self.text[:40]!r}..."
            )
        bad = xml_invalid(self.text)
        if bad is not None:  # a field would hold what its dump cannot show
            raise InvalidActionError(f"TYPE text holds {bad!r} (U+{ord(bad):04X}), which no "
                                     f"keyboard types: {brief(self.text)}")

    def _check_swipe(self) -> None:
        value = self.direction.upper() if isinstance(self.direction, str) else self.direction
        if not (isinstance(value, str) and value in DIRECTIONS):  # an array compares per item
            raise InvalidActionError(
                f"SWIPE direction must be one of {DIRECTIONS}, got {brief(self.direction)}")
        object.__setattr__(self, "direction", value)

    def _check_press(self) -> None:
        value = self.key.upper() if isinstance(self.key, str) else self.key
        if not (isinstance(value, str) and value in KEYS):
            raise InvalidActionError(f"PRESS key must be one of {KEYS}, got {brief(self.key)}")
        object.__setattr__(self, "key", value)

    def check_inside(self, width: int, height: int) -> None:
        """Raise :class:`InvalidActionError` if the action's point is outside a screen.

        Args:
            width: Screen width in pixels.
            height: Screen height in pixels.
        """
        if self.x is not None and not (self.x < width and self.y < height):
            raise InvalidActionError(
                f"point ({self.x},{self.y}) is outside the {width}x{height} screen"
            )

    @classmethod
    def click(cls, x: int, y: int) -> Action:
        """A tap at device pixel (x, y)."""
        return cls(ActionType.CLICK, x=x, y=y)

    @classmethod
    def long_click(cls, x: int, y: int) -> Action:
        """A long press at device pixel (x, y)."""
        return cls(ActionType.LONG_CLICK, x=x, y=y)

    @classmethod
    def type_text(cls, text: str) -> Action:
        """Type ``text`` into the focused field."""
        return cls(ActionType.TYPE, text=text)

    @classmethod
    def swipe(cls, direction: str) -> Action:
        """Swipe the finger in ``direction`` across the middle of the screen."""
        return cls(ActionType.SWIPE, direction=direction)

    @classmethod
    def press(cls, key: str) -> Action:
        """Press a system key: HOME, BACK or ENTER."""
        return cls(ActionType.PRESS, key=key)

    @classmethod
    def complete(cls) -> Action:
        """Declare the intention done."""
        return cls(ActionType.COMPLETE)

    def __str__(self) -> str:
        return format_action(self)


# ASCII digits only (\d would take Arabic-Indic and full-width ones); at most 9 of them,
# which is far beyond any screen and keeps int() away from its digit limit.
_POINT = re.compile(r"\[\s*(-?[0-9]{1,9})\s*,\s*(-?[0-9]{1,9})\s*\]")  # see MAX_COORDINATE
_WORD = re.compile(r"\[\s*([A-Za-z]+)\s*\]")
# ASCII: in Unicode mode IGNORECASE matches the Kelvin sign (U+212A) as "k", which upper()
# keeps: "CLIC\u212a[1,2]" matched, then was no action type.
_PRESS_SHORT = re.compile(r"PRESS_(HOME|BACK|ENTER)", re.IGNORECASE | re.ASCII)
_HEAD = re.compile(r"^\s*(LONG_CLICK|CLICK|TYPE|SWIPE|PRESS|COMPLETE)\s*",
                   re.IGNORECASE | re.ASCII)


def parse_action(value: str) -> Action:
    """Parse an action string in the Act2Intention format.

    Args:
        value: For example ``"CLICK[344,217]"``, ``"TYPE[coffee mugs]"``, ``"swipe[up]"``,
            ``"PRESS_BACK"`` or ``"COMPLETE"``.

    Returns:
        The validated :class:`Action`.

    Raises:
        InvalidActionError: When the string is not an action; the message quotes it.
    """
    if not isinstance(value, str):
        raise InvalidActionError(f"action must be a string, got {brief(value)}")
    short = _PRESS_SHORT.fullmatch(value.strip())
    if short:
        return Action.press(short.group(1))
    head = _HEAD.match(value)
    if head is None:
        raise InvalidActionError(f"not an action: {brief(value)}")
    kind = ActionType[head.group(1).upper()]
    # Trailing white space (a newline after the action) is not part of it; for TYPE the
    # text ends at the final "]", so this never cuts typed text.
    rest = value[head.end():].rstrip()
    if kind is ActionType.COMPLETE:
        if rest.strip() not in ("", "[]"):
            raise InvalidActionError(f"COMPLETE takes no argument: {brief(value)}")
        return Action.complete()
    if kind is ActionType.TYPE:
        # The text is everything between the first "[" and the final "]", verbatim.
        if not (rest.startswith("[") and rest.endswith("]")):
            raise InvalidActionError(f"TYPE needs TYPE[text]: {brief(value)}")
        return Action.type_text(rest[1:-1])
    pattern = _POINT if kind in (ActionType.CLICK, ActionType.LONG_CLICK) else _WORD
    match = pattern.fullmatch(rest.strip())
    if match is None:
        raise InvalidActionError(f"malformed {kind.name} arguments in {brief(value)}")
    if pattern is _POINT:
        return Action(kind, x=int(match.group(1)), y=int(match.group(2)))
    if kind is ActionType.SWIPE:
        return Action.swipe(match.group(1))
    return Action.press(match.group(1))


def format_action(action: ActionLike) -> str:
    """Write an action in the canonical Act2Intention string format.

    Args:
        action: An :class:`Action`, or what :func:`to_action` reads as one.

    Returns:
        For example ``"CLICK[344,217]"`` or ``"PRESS[BACK]"``.

    Raises:
        InvalidActionError: Naming the value that is not an action.
    """
    action = to_action(action)
    kind = action.type
    if kind in (ActionType.CLICK, ActionType.LONG_CLICK):
        return f"{kind.name}[{action.x},{action.y}]"
    if kind is ActionType.TYPE:
        return f"TYPE[{action.text}]"
    if kind is ActionType.SWIPE:
        return f"SWIPE[{action.direction}]"
    if kind is ActionType.PRESS:
        return f"PRESS[{action.key}]"
    return "COMPLETE"


TEXT_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "


def action_space(width: int, height: int, max_text: int = MAX_TEXT_LENGTH) -> spaces.Dict:
    """A Gymnasium ``Dict`` space holding the same actions as :class:`Action`.

    Keys: ``type`` (Discrete over :class:`ActionType`), ``point`` (x, y device pixels),
    ``text``, ``direction`` (index into ``DIRECTIONS``) and ``key`` (index into ``KEYS``).
    Fields the type does not use are ignored by :func:`action_from_dict`. The ``text``
    entry holds printable ASCII (:data:`TEXT_CHARSET`), as Gymnasium's ``Text`` space needs
    a finite charset; :class:`Action` itself takes any unicode text XML can carry. It may
    be empty, as the entry is unused by other types: a TYPE sample with empty text (about
    2 in 10,000 samples) is no action, and the envs flag it as invalid.

    Args:
        width: Screen width in pixels.
        height: Screen height in pixels.
        max_text: Longest text the ``text`` entry holds.

    Returns:
        The space.

    Raises:
        ValueError: Naming a size that is no integer of at least 1.
    """
    width, height = positive_integer("width", width), positive_integer("height", height)
    max_text = positive_integer("max_text", max_text)
    return spaces.Dict(
        {
            "type": spaces.Discrete(len(ActionType)),
            "point": spaces.Box(
                low=0, high=np.array([width - 1, height - 1]), shape=(2,), dtype=np.int64
            ),
            "text": spaces.Text(max_length=max_text, min_length=0, charset=TEXT_CHARSET),
            "direction": spaces.Discrete(len(DIRECTIONS)),
            "key": spaces.Discrete(len(KEYS)),
        }
    )


_SAMPLE_KEYS = tuple(action_space(1, 1).spaces)  # in the space's order


def _scalar(value: Any) -> Any:
    """``value``, a 0-d array read as the scalar it holds (what a space sample may give)."""
    return value[()] if isinstance(value, np.ndarray) and value.shape == () else value


def _index(sample: dict, key: str, size: int) -> int:
    """``sample[key]`` as an index below ``size``: an integer (not a bool), in range."""
    value = _scalar(sample[key])
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or not (
            0 <= value < size):
        raise InvalidActionError(f"{key} must be an integer in [0, {size}), got {brief(value)}")
    return int(value)


def _point(value: Any) -> np.ndarray:
    """A sample's ``point`` as an array of two integers."""
    try:
        point = np.asarray(value)
    except (ValueError, TypeError):  # a ragged list, say
        point = None
    if point is None or point.shape != (2,) or point.dtype.kind not in "iu":
        raise InvalidActionError(f"point must be two integers, got {brief(value)}")
    return point


def action_from_dict(sample: dict) -> Action:
    """Convert a sample of :func:`action_space` to an :class:`Action`.

    Raises:
        InvalidActionError: When the sample does not make a valid action (a missing or
            unknown key, a float or out-of-range index, TYPE with empty text); the message
            names the value.
    """
    if not isinstance(sample, dict):  # as to_action and batch_actions take samples
        raise InvalidActionError(f"an action sample is a dict (see action_space), got "
                                 f"{brief(sample)}")
    unknown = [key for key in sample if key not in _SAMPLE_KEYS]
    if unknown:  # a misspelt field's value would go unread
        raise InvalidActionError(f"action sample has unknown key {brief(unknown[0])} (keys: "
                                 f"{', '.join(_SAMPLE_KEYS)}): {brief(sample)}")
    try:
        kind = ActionType(_index(sample, "type", len(ActionType)))
        if kind in (ActionType.CLICK, ActionType.LONG_CLICK):
            x, y = _point(sample["point"])
            return Action(kind, x=int(x), y=int(y))
        if kind is ActionType.TYPE:
            return Action.type_text(sample["text"])
        if kind is ActionType.SWIPE:
            return Action.swipe(DIRECTIONS[_index(sample, "direction", len(DIRECTIONS))])
        if kind is ActionType.PRESS:
            return Action.press(KEYS[_index(sample, "key", len(KEYS))])
    except KeyError as err:
        raise InvalidActionError(f"action sample lacks {err}: {brief(sample)}") from err
    return Action.complete()


def action_to_dict(action: ActionLike) -> dict:
    """Convert an :class:`Action` to a sample of :func:`action_space` (unused fields zero).

    Raises:
        InvalidActionError: Naming the value, when it is no action :func:`to_action` reads.
    """
    action = to_action(action)
    return {
        "type": int(action.type),
        "point": np.array([action.x or 0, action.y or 0], dtype=np.int64),
        "text": action.text or "",
        "direction": DIRECTIONS.index(action.direction) if action.direction else 0,
        "key": KEYS.index(action.key) if action.key else 0,
    }


ActionLike = Action | str | dict


def _batchable(sample: dict, space: spaces.Dict) -> dict:
    """``sample``, for the env to judge, where a batch of ``space`` holds it as it is.

    Raises:
        InvalidActionError: For a sample the batch cannot hold as it is: one without a
            key of ``space``, an index (type, direction, key) that is no integer (a bool
            would be taken for 0 or 1), or a point that is not two integers (even where
            its type needs none).
    """
    missing = [key for key in space.spaces if key not in sample]
    if missing:
        raise InvalidActionError(f"action sample lacks {missing[0]!r}: {brief(sample)}")
    for key, part in space.spaces.items():
        if isinstance(part, spaces.Discrete) and not is_integer(_scalar(sample[key])):
            raise InvalidActionError(f"{key} must be an integer, got {brief(sample[key])}")
    _point(sample["point"])
    return sample


def to_action(action: ActionLike) -> Action:
    """An :class:`Action` from an Action, its string form or a sample of :func:`action_space`.

    Raises:
        InvalidActionError: Naming the value that is not an action.
    """
    if isinstance(action, Action):
        return action
    if isinstance(action, str):
        return parse_action(action)
    if isinstance(action, dict):
        return action_from_dict(action)
    raise InvalidActionError(f"not an action: {brief(action)}")


def batch_actions(actions: Sequence[ActionLike], space: spaces.Dict) -> dict:
    """Actions of a vector env's sub-envs, in any form, batched for its ``step``.

    Gymnasium's own vector envs take a batch in the layout of their action space, not a
    list of strings: ``envs.step(batch_actions(["SWIPE[UP]", "PRESS[BACK]"],
    envs.single_action_space))``.

    Args:
        actions: One action per sub-env: an :class:`Action` or its string, read here, or a
            sample of ``space``, batched as it is (the env judges it, as it would alone).
        space: The vector env's ``single_action_space`` (:func:`action_space`).

    Raises:
        InvalidActionError: Naming the first string (or other value) that is no action, a
            sample the batch cannot hold as it is (a key of ``space`` missing, a point not
            of two integers), or ``actions`` when it is one text or empty, not one action
            per sub-env.
    """
    samples = [] if isinstance(actions, str | Action | dict) else [
        _batchable(action, space) if isinstance(action, dict)
        else action_to_dict(action) for action in actions]
    if not samples:
        raise InvalidActionError(f"actions must hold one action per sub-env, got "
                                 f"{brief(actions)}")
    return concatenate(space, samples, create_empty_array(space, len(samples)))
