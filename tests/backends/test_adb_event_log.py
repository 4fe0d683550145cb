"""AdbDevice logs what SimPhone logs: the same scripted steps through both, event by event.

One phone is driven directly; an identical one is served by the virtual device and driven
through real adb by AdbDevice, which sees only uiautomator dumps and routes. Fields that
may differ, and why:

* ``clock`` — SimPhone logs its simulated time, AdbDevice the host's wall clock;
* ``note`` — SimPhone says why nothing happened ("nothing to touch there", "keyboard
  hidden"); AdbDevice can only say "no effect";
* ``typed`` on a tap on the keyboard — SimPhone knows the key; AdbDevice sent ``input tap``
  and the keyboard is its own window, absent from the dump, so it logs ``None``.

Everything else, ``effect`` included, must be equal.
"""

from collections.abc import Callable

import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.backends.adb import AdbConfig, AdbDevice
from mobileintent_gym.phone import SimPhone, StepEvent
from mobileintent_gym.phone.query import find
from mobileintent_gym.phone.tour import plan
from mobileintent_gym.phone.ui import Rect

Step = Callable[[SimPhone], Action]
SAME = ("index", "action", "route_before", "route_after", "hit", "visible", "visible_after",
        "effect")


def center(rect: Rect) -> tuple[int, int]:
    return (rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2


def at(long: bool = False, **criteria: str) -> Step:
    """A click (or long click) at the centre of the first element matching ``criteria``."""
    make = Action.long_click if long else Action.click
    return lambda phone: make(*center(find(phone.hierarchy(), **criteria).bounds))


def corner(**criteria: str) -> Step:
    """A click just inside the top-left corner of the first matching element."""
    def step(phone: SimPhone) -> Action:
        bounds = find(phone.hierarchy(), **criteria).bounds
        return Action.click(bounds[0] + 4, bounds[1] + 4)
    return step


def key(char: str) -> Step:
    """A tap on the on-screen keyboard's key for ``char``."""
    def step(phone: SimPhone) -> Action:
        return Action.click(*center(next(
            rect for rect, c in phone._current().keyboard.keys if c == char)))
    return step


def key_gap(phone: SimPhone) -> Action:
    """A tap on the keyboard between keys (left of the indented second row)."""
    board = phone._current().keyboard
    y = center(board.keys[10][0])[1]
    return Action.click(next(x for x in range(board.rect[2]) if board.key_at(x, y) is None), y)


def fixed(action: Action) -> Step:
    return lambda phone: action


EXTRA: tuple[Step, ...] = (
    at(text="Music", resource_id="icon"),
    at(desc="Your Library"),
    at(resource_id="liked_songs"),
    at(long=True, resource_id="track"),  # a long press on a row opens the track menu sheet
    corner(resource_id="sheet_header"),  # on the sheet: no hit, and the sheet stays
    fixed(Action.click(540, 300)),  # the scrim above the sheet dismisses it
    fixed(Action.swipe("UP")),
    at(long=True, resource_id="track"),
    at(resource_id="add_to_playlist"),
    at(resource_id="new_playlist"),
    corner(resource_id="alertTitle"),  # on the dialog card: no hit
    at(resource_id="playlist_name"),
    key("r"), key("a"), key(" "), key("\b"), key_gap, key("\b"),
    fixed(Action.type_text("in")),
    at(resource_id="create"),
    fixed(Action.click(540, 20)),  # the status bar: nothing there
    at(resource_id="title"),  # a toolbar title takes no touch
    fixed(Action.swipe("DOWN")), fixed(Action.swipe("LEFT")), fixed(Action.swipe("DOWN")),
    at(long=True, resource_id="more"),
    fixed(Action.press("BACK")),
    fixed(Action.press("HOME")),
    at(text="Chat", resource_id="icon"),
    at(long=True, resource_id="chat"),  # a row without a long-press action opens as a click
    at(resource_id="input"),
    key("o"), key("k"), key("\n"),
    fixed(Action.press("BACK")),  # hides the keyboard; the field keeps its focus
    fixed(Action.type_text("still here")),
    fixed(Action.press("ENTER")),
    fixed(Action.press("BACK")), fixed(Action.press("HOME")), fixed(Action.press("HOME")),
    fixed(Action.complete()),
)


@pytest.fixture
def pair(local: LocalAdb) -> tuple[SimPhone, AdbDevice]:
    """A fresh phone and an AdbDevice on the served phone, reset to the same state."""
    device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port))
    device.reset()
    local.thread.call(local.device.phone.reset, None, 0)  # undo reset()'s HOME on its clock
    direct = SimPhone()
    direct.reset(seed=0)
    return direct, device


def dumps(local: LocalAdb) -> int:
    """How many ``uiautomator`` commands the served device ran."""
    return local.thread.call(lambda: sum(argv[0] == "uiautomator"
                                         for argv in local.device.history))


def drive(direct: SimPhone, device: AdbDevice, steps: tuple[Step, ...]
          ) -> list[tuple[StepEvent, StepEvent]]:
    pairs = []
    for step in steps:
        action = step(direct)
        pairs.append((direct.act(action).event, device.act(action).event))
    return pairs


def assert_same_log(pairs: list[tuple[StepEvent, StepEvent]]) -> None:
    for expected, got in pairs:
        for name in SAME:
            assert getattr(got, name) == getattr(expected, name), (name, expected, got)
        tapped_key = expected.action.startswith("CLICK") and expected.typed is not None
        assert got.typed == (None if tapped_key else expected.typed), (expected, got)
        assert got.note == ("intention declared complete" if got.action == "COMPLETE"
                            else "" if got.effect else "no effect")


def test_the_scripted_tour_logs_the_same_events_on_both_backends(pair):
    direct, device = pair
    pairs = drive(direct, device, tuple(lambda phone, s=s: s(phone.hierarchy())
                                        for _, s in plan(SimPhone().apps.values())))
    assert_same_log(pairs)
    assert sum(e.hit is not None for e, _ in pairs) >= 15
    assert sum(bool(e.visible) for e, _ in pairs) >= 8


def test_sheets_dialogs_keyboard_and_empty_taps_log_the_same_events(local, pair):
    direct, device = pair
    local.thread.call(local.device.history.clear)
    pairs = drive(direct, device, EXTRA)
    assert_same_log(pairs)
    events = [e for e, _ in pairs]
    touches = [e for e in events if e.action.startswith(("CLICK", "LONG_CLICK"))]
    assert sum(e.hit is None for e in touches) >= 10  # keys, sheet, dialog, nothing
    assert any(e.hit and e.hit.entity and e.action.startswith("LONG") for e in events)
    assert [e.typed for e in events if e.typed and e.action.startswith("CLICK")] == [
        "r", "a", " ", "o", "k"]
    assert {"music/track_menu", "music/new_playlist", "chat/conversation"} <= {
        e.route_after for e in events}
    # One dump before the first action, then one after each action that sent a command.
    assert dumps(local) == 1 + sum(e.action != "COMPLETE" for e in events)


def test_reads_between_actions_reuse_the_last_dump_and_commands_refresh_it(local, pair):
    _, device = pair
    device.act(Action.press("BACK"))
    before = dumps(local)
    device.screenshot()
    device.route()
    device.act(Action.swipe("UP"))
    assert dumps(local) == before + 1  # only the dump after the swipe
    device.reset()
    device.act(Action.complete())
    assert dumps(local) == before + 2  # reset() sent HOME: the next action dumps afresh


def test_without_observation_hit_and_visible_stay_empty_and_nothing_is_dumped(local):
    local.thread.call(local.device.phone.reset, None, 0)
    device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port, observe=False))
    device.reset()
    local.thread.call(local.device.history.clear)
    steps = (at(text="Music", resource_id="icon"), at(desc="Your Library"),
             at(resource_id="liked_songs"), at(resource_id="track"), fixed(Action.complete()))
    served = local.device.phone
    events = [device.act(local.thread.call(step, served)).event for step in steps]
    assert [(e.hit, e.visible, e.visible_after) for e in events] == [(None, (), ())] * 5
    assert [e.effect for e in events] == [True] * 4 + [False]
    assert events[-2].route_after == "music/library/liked"
    assert dumps(local) == 0
