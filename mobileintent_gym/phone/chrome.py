"""System chrome around the app window: status bar, navigation handle, keyboard, window.

This module turns the phone's back stacks into a :class:`View` and adds the system bars to
its draw operations.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from mobileintent_gym.phone import keyboard, launcher
from mobileintent_gym.phone.paint import Color, Fill, Icon, Label, Round
from mobileintent_gym.phone.render import Geometry, Op
from mobileintent_gym.phone.ui import FRAME, Node
from mobileintent_gym.phone.view import Layer, View
from mobileintent_gym.phone.widgets import Ctx, daytime

if TYPE_CHECKING:
    from mobileintent_gym.phone.app import App, Entry
    from mobileintent_gym.phone.phone import SimPhone

STATUS_DP, NAV_DP = 28, 20


def bar_heights(density: float) -> tuple[int, int]:
    """Pixel heights of the status bar and the navigation handle area."""
    return round(STATUS_DP * density), round(NAV_DP * density)


def clock_face(clock: datetime) -> tuple[date, str]:
    """What of ``clock`` app screens may show: the date and the :func:`daytime`.

    A built screen is reused while this is unchanged.
    """
    return clock.date(), daytime(clock.hour)


def build_view(phone: SimPhone) -> View:
    """The view of whatever is in front: the launcher or the top screens of an app."""
    status, nav = bar_heights(phone.density)
    w, h = phone.width, phone.height
    stacks = phone._stacks
    fg, clock, front = stacks.foreground, phone._state.clock, stacks.front()
    board = (keyboard.layout(w, h - nav, phone.density, front.key_set)
             if front.focus and front.keyboard else None)
    bottom = board.rect[1] if board else h - nav
    if fg is None:
        ctx = Ctx(w, h, phone.density, (0, status, w, bottom), launcher.THEME,
                  launcher.PACKAGE, *clock_face(clock))
        content = launcher.build(ctx, list(phone.apps.values()), clock, front)
        root = Node(FRAME, (0, 0, w, h)).add(content)
        return View(root, "launcher", launcher.PACKAGE, content, board)
    app, entries = phone.apps[fg], stacks.layers()
    ctx = Ctx(w, h, phone.density, (0, status, w, bottom), app.theme, app.package,
              *clock_face(clock))
    layers = tuple(_layer(phone, app, ctx, entry) for entry in entries)
    root = Node(FRAME, (0, 0, w, h)).add(*(layer.node for layer in layers))
    return View(root, entries[-1].route, app.package, layers[-1].node, board, layers)


def _layer(phone: SimPhone, app: App, ctx: Ctx, entry: Entry) -> Layer:
    """One screen's node tree, reused while its entry, data version and window are equal.

    A sheet or dialog over a list then rebuilds only itself; built trees are never
    modified, so one tree can sit in several views.
    """
    key = (app.id, phone._stacks.versions[app.id], entry.key(), ctx.content, ctx.today,
           ctx.daytime)
    layer = phone._layers.get(key)
    if layer is None:
        layer = phone._layers.put(key, Layer(app.build(ctx, entry, phone._state.apps[app.id])))
    return layer


def frame_ops(phone: SimPhone, view: View) -> tuple[list[Op], Geometry]:
    """Every draw operation of the screen, the system bars' last, and their geometry.

    Both are kept on the view while the bars are unchanged, so an unchanged screen hands
    the renderer the very same list.
    """
    fg = phone._stacks.foreground
    bar = launcher.THEME.bar if fg is None else phone.apps[fg].theme.bar
    bars = system_bars(phone.width, phone.height, phone.density, bar,
                       phone._state.clock.strftime("%H:%M"))
    return view.frame_ops(bars)


@lru_cache(maxsize=32)
def system_bars(width: int, height: int, density: float, bar: Color, time: str
                ) -> tuple[Op, ...]:
    """Status bar (clock, signal, wifi, battery) and the gesture navigation handle."""
    status, nav = bar_heights(density)
    ink: Color = (20, 20, 20) if sum(bar) > 382 else (245, 245, 245)
    size, pad = round(16 * density), round(16 * density)
    ops: list[Op] = [((0, 0, width, status), Fill(bar), None),
                     ((pad, 0, pad + round(60 * density), status),
                      Label(time, round(14 * density), ink, bar, bold=True), None)]
    x = width - pad
    for name in ("battery", "wifi", "signal"):
        ops.append(((x - size, 0, x, status), Icon(name, ink, bar, size), None))
        x -= size + round(6 * density)
    handle_w, handle_h = round(108 * density), round(4 * density)
    top = height - nav
    ops.append(((0, top, width, height), Fill(bar), None))
    hx, hy = (width - handle_w) // 2, top + (nav - handle_h) // 2
    ops.append(((hx, hy, hx + handle_w, hy + handle_h),
                Round(ink, bar, handle_h // 2), None))
    return tuple(ops)
