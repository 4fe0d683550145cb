"""What the envs without a screen of their own share (Understand and Predict)."""

from __future__ import annotations

from typing import Any, ClassVar


class Screenless:
    """A mixin for an env that shows no screen: no render mode but ``None``.

    Put it before ``gym.Env`` among the bases, so that its ``metadata`` and ``render`` are
    the env's.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "render_fps": 1}

    def render(self) -> None:
        """``None``: this env has no screen to show.

        Gymnasium's envs return ``None`` without a render mode (``gym.Env.render`` raises
        NotImplementedError).
        """
        return None
