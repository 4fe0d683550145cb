"""Image files the report commands write: checked before any work, written whole.

The format follows the file's extension, as PIL reads it; an extension PIL cannot write
(or cannot write several frames into, for an animation) is refused while the command is
still checking its arguments, not after the minutes of work that lead to the image.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

from mobileintent_gym.console import UsageError
from mobileintent_gym.files import write_atomic


def image_format(path: Path, option: str, frames: bool = False) -> str:
    """The format PIL writes ``path`` in (``PNG``, ``GIF`` …), from its extension.

    Args:
        path: Where the image goes.
        option: The command-line option that named it, for the message.
        frames: The image is an animation (several frames in one file).

    Raises:
        UsageError: Naming the option and the path, when PIL cannot write it.
    """
    Image.init()
    kind = Image.registered_extensions().get(path.suffix.lower())
    if kind is None or not _writes(kind, frames):
        usable = [".gif", ".png", ".webp"] if frames else [".jpg", ".png", ".webp"]
        what = "an animation" if frames else "a colour image"
        raise UsageError(f"{option} {str(path)!r}: cannot write {what} with extension "
                         f"{path.suffix or '(none)'!r}; use one of {usable}")
    return kind


def _writes(kind: str, frames: bool) -> bool:
    """Whether PIL writes an RGB image (of two frames, for an animation) as ``kind``.

    Tried on a tiny image: a format PIL lists may still refuse colour (XBM) or need a
    plugin it lacks (HDF5, BUFR, WMF).
    """
    tiny = Image.new("RGB", (2, 2))
    extra = {"save_all": True, "append_images": [tiny]} if frames else {}
    try:
        tiny.save(io.BytesIO(), format=kind, **extra)
    except Exception:  # PIL raises what each plugin raises: OSError, KeyError, ValueError …
        return False
    return True


def save_image(image: Image.Image, path: Path, **params: Any) -> None:
    """Save ``image`` to ``path`` in the format of its extension, whole or not at all.

    Raises:
        ValueError: For an extension PIL does not know.
    """
    Image.init()
    kind = Image.registered_extensions().get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"no image format has the extension of {str(path)!r}")
    buffer = io.BytesIO()
    image.save(buffer, format=kind, **params)
    write_atomic(path, buffer.getvalue())
