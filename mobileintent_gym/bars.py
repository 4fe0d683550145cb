"""The progress bars of transformers, which it draws while it loads a model's weights."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def transformers_bars(shown: bool) -> Iterator[None]:
    """Hold transformers' progress bars ("Loading weights") off while open, unless ``shown``.

    They are on again afterwards where they were before; nothing changes where transformers
    is not installed (what needs it names the extra).
    """
    try:
        from transformers.utils import logging
    except ImportError:
        shown = True
    hidden = not shown and logging.is_progress_bar_enabled()
    if hidden:
        logging.disable_progress_bar()
    try:
        yield
    finally:
        if hidden:
            logging.enable_progress_bar()
