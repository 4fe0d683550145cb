"""What a device backend reads from a device: its screenshots, and the event of an action.

Backends that only see what a device exposes (adb, Appium) build their :class:`StepEvent`
here, by the same touch rules the simulated phone applies (:mod:`mobileintent_gym.phone.touch`),
so rewards computed from the log agree across backends.
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Iterator

import numpy as np
from PIL import Image, UnidentifiedImageError

from mobileintent_gym.actions import Action, ActionType
from mobileintent_gym.backends.adb_transport import DeviceCommandError
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.touch import ScreenDump

_TOUCHES = (ActionType.CLICK, ActionType.LONG_CLICK)


def read_frame(png: bytes, size: tuple[int, int], source: str) -> np.ndarray:
    """The H×W×3 uint8 frame of a screenshot ``png`` of a ``size`` (width, height) screen.

    Raises:
        DeviceCommandError: Naming ``source``, when ``png`` is no readable PNG, or one of
            another size (a device turned to landscape), read from its header before any
            pixel is decoded: that frame would lie outside the env's observation space.
    """
    with _unreadable(png, source):
        image = Image.open(io.BytesIO(png))
        if image.size != size:
            raise DeviceCommandError(
                f"{source} gave a {image.width}x{image.height} screen where the device said "
                f"{size[0]}x{size[1]} (turned to landscape?)")
        return np.asarray(image.convert("RGB"))


def frame_size(png: bytes, source: str) -> tuple[int, int]:
    """The (width, height) of a screenshot ``png``, read from its header.

    Raises:
        DeviceCommandError: Naming ``source``, when ``png`` is no readable PNG.
    """
    with _unreadable(png, source):
        return Image.open(io.BytesIO(png)).size


@contextlib.contextmanager
def _unreadable(png: bytes, source: str) -> Iterator[None]:
    """Pillow's errors on ``png`` as the :class:`DeviceCommandError` naming ``source``."""
    try:
        yield
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as err:
        raise DeviceCommandError(f"{source} gave no readable PNG ({err}): {png[:40]!r}"
                                 ) from err


def read_screen(xml: str, source: str) -> ScreenDump:
    """The screen of dump ``xml`` (its touch targets and visible records).

    Raises:
        DeviceCommandError: When ``xml`` is no dump; the message names ``source``.
    """
    try:
        return ScreenDump(xml)
    except DeviceError as err:
        raise DeviceCommandError(f"unreadable {source}: {err}") from err


def observed_event(index: int, action: Action, routes: tuple[str, str],
                   screens: tuple[ScreenDump | None, ScreenDump | None],
                   sent: bool) -> StepEvent:
    """The log entry of ``action`` from the routes and dumps before and after it.

    Args:
        index: The event's position in the log.
        action: The action carried out.
        routes: Route before and after it.
        screens: Dump before and after it, or ``None`` where the backend took none.
        sent: Whether a command reached the device (``False`` for COMPLETE).

    Returns:
        The event: ``hit`` for clicks and long clicks, ``visible``/``visible_after`` and
        ``record``/``record_after`` from the dumps; ``effect`` is whether the route or the
        dump changed (without dumps, whether a command was sent); ``typed`` is the TYPE
        action's text when it had an effect (text that reached no field was not typed).
    """
    (before, after), (seen, now) = routes, screens
    hit = seen.hit_at(action.x, action.y) if seen is not None and action.type in _TOUCHES \
        else None
    effect = sent if seen is None or now is None else (after != before or now.xml != seen.xml)
    note = ("intention declared complete" if action.type is ActionType.COMPLETE
            else "" if effect else "no effect")
    return StepEvent(index, str(action), before, after, hit,
                     seen.visible if seen else (), now.visible if now else (),
                     action.text if effect else None, effect, note,
                     time.strftime("%Y-%m-%d %H:%M:%S"),
                     seen.record if seen else None, now.record if now else None)
