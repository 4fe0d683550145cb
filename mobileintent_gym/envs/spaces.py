"""Observation spaces shared by the environments."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, overload

import numpy as np
from gymnasium import spaces
from gymnasium.spaces.utils import flatten, flatten_space, unflatten
from gymnasium.vector.utils import batch_space, read_from_shared_memory

from mobileintent_gym.checks import xml_safe

INSTRUCTION_LENGTH = 512
HIERARCHY_LENGTH = 1 << 20


@lru_cache(maxsize=1)
def unicode_charset() -> str:
    """Every printable character of Unicode's basic plane (what samples are drawn from)."""
    return "".join(c for c in map(chr, range(0x20, 0x10000))
                   if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF)


@lru_cache(maxsize=1)
def _charset_tables() -> spaces.Text:
    """One ``Text`` holding the tables of :func:`unicode_charset` for the whole process."""
    return spaces.Text(1, charset=unicode_charset())


class UnicodeText(spaces.Text):
    """A ``Text`` space of any text XML can carry: every plane, joiners, no-break spaces.

    Samples are drawn from the printable basic plane (:func:`unicode_charset`); membership
    asks for a string of the allowed length without the control characters, surrogates
    and non-characters XML 1.0 cannot hold (which no dump or instruction contains).

    Flattened (Gymnasium's ``flatten``, ``FlattenObservation``) as its code points plus
    one, zero-padded to ``max_length`` (``Box(0, 0x110000)``): every character it holds
    flattens and comes back, where ``Text``'s charset index knows only the printable basic
    plane.

    The charset's tables (some 60,000 characters as a set, a list and an index, about
    10 MB of Python objects) are built once per process, when first asked for (sampling,
    comparing): a worker that only steps an env never builds them.
    """

    def __init__(self, max_length: int, min_length: int = 1) -> None:
        super().__init__(max_length, min_length=min_length, charset=" ")

    @property
    def character_set(self) -> frozenset[str]:
        """The characters samples are drawn from (shared; built on first use)."""
        return _charset_tables().character_set

    @property
    def character_list(self) -> tuple[str, ...]:
        """Those characters in a fixed order (shared; built on first use)."""
        return _charset_tables().character_list

    @property
    def characters(self) -> str:
        """Those characters as one string (shared; built on first use)."""
        return _charset_tables().characters

    def character_index(self, char: str) -> np.int32:
        """The index of ``char`` in :attr:`character_list`."""
        return _charset_tables().character_index(char)

    def __repr__(self) -> str:
        """A short form: the charset has some 60,000 characters."""
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __reduce__(self) -> tuple:
        # Pickled as its lengths: the charset is rebuilt from the cache (2 MB otherwise).
        return type(self), (self.max_length, self.min_length)

    def contains(self, x: object) -> bool:
        """Whether ``x`` is a string of an allowed length that XML can carry."""
        return (isinstance(x, str) and self.min_length <= len(x) <= self.max_length
                and xml_safe(x))


CODE_POINTS = 0x110000
"""Unicode's code points; a flattened :class:`UnicodeText` holds them plus one, 0 padding."""


@flatten_space.register(UnicodeText)
def _flat_unicode_space(space: UnicodeText) -> spaces.Box:
    return spaces.Box(0, CODE_POINTS, (space.max_length,), np.int32)


@flatten.register(UnicodeText)
def _flatten_unicode(space: UnicodeText, x: str) -> np.ndarray:
    out = np.zeros(space.max_length, np.int32)
    codes = np.frombuffer(x.encode("utf-32-le", "surrogatepass"), "<u4")
    out[:len(codes)] = codes + 1
    return out


@unflatten.register(UnicodeText)
def _unflatten_unicode(space: UnicodeText, x: np.ndarray) -> str:
    return _decoded(x)


def _decoded(codes: np.ndarray) -> str:
    """The text of flattened ``codes`` (code points plus one, up to the first 0)."""
    end = int(np.argmax(codes == 0)) if codes[-1] == 0 else len(codes)  # padding trails
    return (codes[:end] - 1).astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")


class SharedTexts(Sequence[str]):
    """A batch's texts in a vector env's shared memory, read as they are when asked for.

    Gymnasium's ``AsyncVectorEnv`` with shared memory reads its observations out of shared
    memory once, when it is built: arrays are views of the memory the workers write, but
    text was read there and then, so every later step showed those first texts (Gymnasium
    issue #1164). Its reader for :class:`UnicodeText` gives this view instead, whose items
    are the texts written last, as a view's values are; a copy (the vector env's
    ``copy=True``, its default, deep-copies each step's observations) is a tuple of them.

    Args:
        codes: The batch's flattened texts, one row per sub-env (read, never written).
    """

    def __init__(self, codes: np.ndarray) -> None:
        self._codes = codes

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(map(_decoded, self._codes[index]))
        return _decoded(self._codes[index])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Sequence) and not isinstance(other, str)
                and tuple(self) == tuple(other))

    __hash__ = None  # type: ignore[assignment]  # its texts change

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"

    def __copy__(self) -> tuple[str, ...]:
        return tuple(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (tuple(self),)


@read_from_shared_memory.register(UnicodeText)
def _read_unicode_from_shared_memory(space: UnicodeText, shared_memory: Any, n: int = 1
                                     ) -> SharedTexts:
    codes = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    return SharedTexts(codes.reshape(n, space.max_length))


class FrameBox(spaces.Box):
    """The ``Box`` of H×W×3 uint8 screenshots, with bounds that take no memory.

    A plain ``Box`` keeps its bounds and their masks as four arrays of the frame's shape,
    31 MB at 1080×2400 per space, and as many again per sub-env once a vector env batches
    it. Here they are read-only broadcasts of one pixel row (a few kB: broadcasting one
    value would make NumPy compare them element by element, 16 ms for Gymnasium's check of
    a 1080×2400 space instead of 0.9); the space pickles as its shape, and batches
    (``gymnasium.vector.utils.batch_space``) into a ``FrameBox`` too. A uint8 array of the
    frame's shape is contained without comparing its pixels: every uint8 value is in
    bounds.

    Args:
        shape: The frame's shape, leading batch dimensions included.
    """

    def __init__(self, shape: tuple[int, ...]) -> None:
        shape = tuple(shape)
        super().__init__(0, 255, (1,) * (len(shape) - 2) + shape[-2:], np.uint8)
        self._shape = shape
        self.low, self.high = (np.broadcast_to(b, self._shape) for b in (self.low, self.high))
        self.bounded_below, self.bounded_above = (np.broadcast_to(b, self._shape) for b in
                                                  (self.bounded_below, self.bounded_above))

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a frame of this space (a uint8 array is, if its shape is)."""
        if isinstance(x, np.ndarray) and x.dtype == np.uint8:
            return x.shape == self.shape
        return super().contains(x)

    def __reduce__(self) -> tuple:
        return type(self), (self._shape,)


@batch_space.register(FrameBox)
def _batch_frames(space: FrameBox, n: int = 1) -> FrameBox:
    return FrameBox((n, *space.shape))


# Each observation field's space for a (width, height) screen.
_FIELD_SPACES: dict[str, Callable[[int, int], spaces.Space]] = {
    "screenshot": lambda width, height: FrameBox((height, width, 3)),
    "instruction": lambda width, height: UnicodeText(INSTRUCTION_LENGTH),
    "hierarchy": lambda width, height: UnicodeText(HIERARCHY_LENGTH),
}
OBSERVATION_FIELDS = tuple(_FIELD_SPACES)


def observation_space(width: int, height: int, fields: tuple[str, ...]) -> spaces.Dict:
    """The Dict observation space of ``fields`` for a ``width`` × ``height`` screen.

    Fields: ``screenshot`` (H×W×3 uint8), ``instruction`` (text) and ``hierarchy`` (the
    uiautomator dump).

    Raises:
        ValueError: Naming an unknown field.
    """
    check_fields(fields)
    return spaces.Dict({name: _FIELD_SPACES[name](width, height) for name in fields})


def observation_fields(observation: Any) -> tuple[str, ...]:
    """``observation`` (a field's name, or several) as a tuple of fields, checked.

    A field named twice is kept once, where it first came.

    Raises:
        ValueError: Naming what was given, unless it is a non-empty selection of
            :data:`OBSERVATION_FIELDS`.
    """
    if isinstance(observation, str | bytes) or not isinstance(observation, Iterable):
        observation = (observation,)
    fields = tuple(observation)
    check_fields(fields)
    return tuple(dict.fromkeys(fields))


def check_fields(fields: tuple[str, ...]) -> None:
    """Raise unless ``fields`` is a non-empty selection of :data:`OBSERVATION_FIELDS`.

    Raises:
        ValueError: Naming the fields given.
    """
    if not fields or any(f not in OBSERVATION_FIELDS for f in fields):
        raise ValueError(f"observation fields must be a non-empty subset of "
                         f"{sorted(OBSERVATION_FIELDS)}, got {fields!r}")
