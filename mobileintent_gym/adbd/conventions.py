"""What the adb backend and the virtual device agree on, so both mean the same thing.

* **Routes as activities.** Android reports the focused window as ``package/activity``.
  The virtual device names its activities after the simulated route —
  ``com.example.demo/.route.demo.library.recent`` for ``demo/library/recent`` — so that
  :class:`~mobileintent_gym.backends.adb.AdbDevice` recovers the exact route; on other
  devices the route is ``package/activity`` (and ``launcher`` for a home screen).
* **The canonical swipe.** ``SWIPE[d]`` is sent as one fixed gesture (Android-like: 40 % of
  the screen height or 60 % of its width through the middle, 300 ms). The virtual device
  treats exactly that gesture as the action ``SWIPE[d]``, so a swipe scrolls by the same
  amount on both backends; any other drag is a plain finger drag.
* **Long press** is ``input swipe x y x y 1000``; a still touch of 500 ms or more is a
  long press (Android's default long-press timeout).
* **Restoring a user's content.** The env asks the virtual device to load the state it
  holds with ``cmd mobileintent restore-state`` (:data:`RESTORE_COMMAND`).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

KEYCODES = {"HOME": 3, "BACK": 4, "ENTER": 66}
SERVICE = "mobileintent"  # the virtual device's own ``cmd`` service
RESTORE_COMMAND = f"cmd {SERVICE} restore-state"
STATE_COMMAND = f"cmd {SERVICE} state"  # what it holds, changing nothing
NO_USER_NAME = "-"  # the user that command names when the phone holds the built-in content
# How the virtual device refuses to restore when it was served without a user.
NO_USER = "nothing to restore: this phone holds no user's content"
LONG_PRESS_MS = 500
LONG_PRESS_GESTURE_MS = 1000
SWIPE_MS = 300
LAUNCHER_PACKAGES = frozenset({
    "com.android.launcher3",
    "com.google.android.apps.nexuslauncher",
    "com.sec.android.app.launcher",
    "com.miui.home",
})
_ROUTE_MARK = ".route."


def activity_for(package: str, route: str) -> str:
    """The component the virtual device reports for ``route`` in ``package``.

    Example:
        >>> activity_for("com.example.demo", "demo/library/recent")
        'com.example.demo/.route.demo.library.recent'
    """
    segments = (quote(segment, safe="").replace(".", "%2E") for segment in route.split("/"))
    return f"{package}/{_ROUTE_MARK}{'.'.join(segments)}"


def route_from_component(package: str, activity: str) -> str:
    """The route a focused ``package``/``activity`` stands for (inverse of :func:`activity_for`).

    Returns:
        The simulated route when the activity encodes one; ``launcher`` for a known home
        screen; otherwise ``package/activity``.
    """
    for prefix in (_ROUTE_MARK, f"{package}{_ROUTE_MARK}"):
        if activity.startswith(prefix):
            return "/".join(unquote(s) for s in activity[len(prefix):].split("."))
    if package in LAUNCHER_PACKAGES:
        return "launcher"
    return f"{package}/{activity}"


def swipe_gesture(direction: str, width: int, height: int) -> tuple[int, int, int, int]:
    """``(x1, y1, x2, y2)`` of the canonical swipe for ``direction`` on a width×height screen.

    ``UP`` moves the finger up (content further down comes into view).
    """
    cx, cy = width // 2, height // 2
    top, bottom = round(height * 0.3), round(height * 0.7)
    left, right = round(width * 0.2), round(width * 0.8)
    return {
        "UP": (cx, bottom, cx, top),
        "DOWN": (cx, top, cx, bottom),
        "LEFT": (right, cy, left, cy),
        "RIGHT": (left, cy, right, cy),
    }[direction]
