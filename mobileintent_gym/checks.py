"""Type checks and normalisations shared by argument and data validation."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Set
from numbers import Real
from typing import Any

import numpy as np

from mobileintent_gym.errors import (
    InvalidArgumentError,
    InvalidOptionsError,
    MobileIntentError,
    brief,
)

MAX_DIGITS = 18
"""The most digits of an integer read from text or a profile (an int64 holds it)."""
MAX_PORT = 65535
"""The highest TCP port."""


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an integer, Python's or NumPy's; a bool is not one."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def is_count(value: Any, least: int = 1) -> bool:
    """Whether ``value`` is an integer (see :func:`is_integer`) of at least ``least``."""
    return is_integer(value) and value >= least


def check_type(name: str, value: Any, kind: type | tuple[type, ...], says: str) -> None:
    """Refuse ``value`` for the argument ``name`` unless it is a ``kind``.

    Raises:
        InvalidArgumentError: Naming the argument, what it must be (``says``) and what it
            got.
    """
    if not isinstance(value, kind):
        raise InvalidArgumentError(f"{name} must be {says}, got {type(value).__name__} "
                                   f"{brief(value, 60)}")


def is_flag(value: Any) -> bool:
    """Whether ``value`` is True or False, Python's or NumPy's; a text such as ``"no"`` is not."""
    return isinstance(value, bool | np.bool_)


def check_integers(least: int, **counts: Any) -> None:
    """Refuse any of ``counts`` (argument name → value) that is no integer of at least ``least``.

    Raises:
        MobileIntentError: Naming each bad count and its value. Not a ``TypeError``: an
            env's constructor raises it, and ``gym.make`` would add every keyword argument
            to a TypeError's message (an Appium URL's password among them).
    """
    bad = [f"{name}={brief(value, 40)}" for name, value in counts.items()
           if not is_count(value, least)]
    if bad:
        raise MobileIntentError(f"{', '.join(bad)}: must be integers >= {least}")


def check_flags(**flags: Any) -> None:
    """Refuse any of ``flags`` (argument name → value) that is not True or False.

    A NumPy bool is one; a text such as ``"no"`` is not (it would read as true).

    Raises:
        InvalidArgumentError: Naming each bad flag and its value.
    """
    bad = [f"{name}={brief(value, 40)}" for name, value in flags.items() if not is_flag(value)]
    if bad:
        raise InvalidArgumentError(f"{', '.join(bad)}: must be True or False")


def check_collection(name: str, items: Any, says: str, kind: type = Collection,
                     ordered: bool = True) -> None:
    """Refuse ``items`` unless it is a ``kind`` and no text (nor a NumPy array of 0-d).

    A text given for a sequence of texts would be read one character at a time; a set,
    where ``ordered``, in an order that differs between processes (and without repeats).

    Raises:
        InvalidArgumentError: Naming the argument, what its items must be (``says``) and
            what it got.
    """
    if isinstance(items, str | bytes) or not isinstance(items, kind) or (
            getattr(items, "ndim", 1) == 0) or (ordered and isinstance(items, Set)):
        raise InvalidArgumentError(f"{name} must be a list or other {kind.__name__.lower()} "
                                   f"of items each {says}, got {type(items).__name__} "
                                   f"{brief(items, 60)}")


def check_items(name: str, items: Any, allowed: Callable[[Any], bool], says: str,
                kind: type = Collection, ordered: bool = True) -> None:
    """Refuse ``items`` unless :func:`check_collection` takes it and ``allowed`` each item.

    A wrong item would fail deep inside the work or count as something it is not.

    Args:
        name: The argument, as the message names it.
        items: Its value.
        allowed: Whether an item is one it may hold.
        says: What each item must be, for the message (``"a str"``).
        kind: What ``items`` must be.
        ordered: Refuse a set (its order differs between processes).

    Raises:
        InvalidArgumentError: As :func:`check_collection` does; else naming the first bad
            item and its place.
    """
    check_collection(name, items, says, kind, ordered)
    for index, item in enumerate(items):
        if not allowed(item):
            raise InvalidArgumentError(f"{name}: item {index} must be {says}, got "
                                       f"{type(item).__name__} {brief(item, 60)}")


def check_seed(seed: Any) -> int:
    """A seed as an ``int``: an integer of at least 0, as NumPy and Gymnasium take seeds.

    Which days a user lives, an agent's draws.

    Raises:
        InvalidArgumentError: Naming the value, for anything else.
    """
    if not is_count(seed, least=0):
        raise InvalidArgumentError(f"seed must be an integer of at least 0, got {brief(seed)}")
    return int(seed)


def check_render_mode(render_mode: Any, modes: Iterable[str]) -> str | None:
    """``render_mode`` when it is ``None`` or one of an env's ``modes``.

    Raises:
        InvalidOptionsError: Naming the value and the modes the env has.
    """
    modes = tuple(modes)
    if render_mode is None or (isinstance(render_mode, str) and render_mode in modes):
        return render_mode
    allowed = " or ".join(repr(mode) for mode in (None, *modes))
    said = "" if modes else " (this env renders nothing)"
    raise InvalidOptionsError(f"render_mode must be {allowed}{said}, got {brief(render_mode)}")


def positive_integer(name: str, value: Any) -> int:
    """``value`` as an ``int`` when it is an integer of at least 1 (see :func:`is_integer`).

    Raises:
        ValueError: Naming ``name`` and the value, for anything else.
    """
    if not is_count(value):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_fraction(name: str, value: Any) -> None:
    """Refuse ``value`` unless it is a number in [0, 1] (a chance, a rate).

    Raises:
        ValueError: Naming ``name`` and the value.
    """
    if not is_fraction(value):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")


XML_INVALID = "\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff"
"""The code points XML 1.0 cannot carry at all, escaped or not (a regex character class);
a device's view hierarchy drops them too, and no keyboard types them."""
_XML_INVALID = re.compile(f"[{XML_INVALID}]")


def xml_invalid(text: str) -> str | None:
    """The first character of ``text`` that XML 1.0 cannot carry (``None``: there is none)."""
    found = _XML_INVALID.search(text)
    return None if found is None else found.group()


def xml_safe(text: str) -> bool:
    """Whether XML 1.0 can carry every character of ``text`` (escaped where needed)."""
    return xml_invalid(text) is None


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (integer or float, NumPy's too); a bool is not one."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_fraction(value: Any) -> bool:
    """Whether ``value`` is a number in [0, 1] (see :func:`is_number`): a chance, a rate."""
    return is_number(value) and 0 <= value <= 1


def is_finite(value: Any) -> bool:
    """Whether ``value`` is a real number (see :func:`is_number`) that is neither inf nor NaN."""
    return is_number(value) and math.isfinite(value)


def is_digits(text: str) -> bool:
    """Whether ``text`` is 1 to 18 ASCII digits: a plain number that ``int()`` reads.

    ``str.isdigit`` also takes characters such as ``²`` that ``int()`` refuses, and ``int()``
    refuses more than 4,300 digits; no count, port or size of this package needs 19.
    """
    return len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def ordered(items: Iterable[Any]) -> tuple[Any, ...]:
    """``items`` as a tuple in their order; a set sorted (as text).

    A set's own order differs between processes (string hashing), and so would seeded
    draws from it.
    """
    return tuple(sorted(items, key=str) if isinstance(items, Set) else items)


def reset_options(options: Any, known: Iterable[str], integers: Iterable[str] = (),
                  below: Mapping[str, int] | None = None) -> dict[str, Any]:
    """An env's reset ``options`` as a dict, each checked to be one of ``known``.

    The options named in ``integers`` must be integers where given (not ``None``), those
    named in ``below`` integers too, at least 0 and below its value (an index, checked
    before the work that depends on it).

    Raises:
        InvalidOptionsError: When ``options`` is not a dict (or ``None``), names an
            unknown option, gives one of ``integers`` another value, or one of ``below``
            a value out of its range.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidOptionsError(f"reset options must be a dict, got {type(options).__name__}")
    unknown = sorted(str(key) for key in options if key not in known)
    if unknown:
        raise InvalidOptionsError(f"unknown reset options {unknown}; known: {sorted(known)}")
    below = below or {}
    for name in dict.fromkeys([*integers, *below]):  # in order: one message for one call
        value = options.get(name)
        if value is not None and not is_integer(value):
            raise InvalidOptionsError(f"reset option {name} must be an integer, got {value!r}")
    for name, limit in below.items():
        value = options.get(name)
        if value is not None and not 0 <= value < limit:
            raise InvalidOptionsError(f"reset option {name} must be in 0..{limit - 1}, got "
                                      f"{value!r}")
    return dict(options)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict; a key given twice (the last would win) is refused.

    For ``json.loads(text, object_pairs_hook=unique_keys)``.

    Raises:
        ValueError: Naming the key given twice.
    """
    found = dict(pairs)
    if len(found) < len(pairs):
        keys = [key for key, _ in pairs]
        twice = next(key for i, key in enumerate(keys) if key in keys[:i])
        raise ValueError(f"key {twice!r} is given twice")
    return found
