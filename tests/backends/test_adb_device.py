import contextlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from mobileintent_gym.actions import Action, action_to_dict
from mobileintent_gym.adbd.conventions import route_from_component
from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.backends.adb import (
    AdbConfig,
    AdbDevice,
    DeviceCommandError,
    DeviceTimeoutError,
    DeviceUnavailableError,
    UnsupportedTextError,
    text_commands,
)
from mobileintent_gym.backends.adb_transport import AdbTransport
from mobileintent_gym.backends.device_lock import DeviceBusyError
from mobileintent_gym.errors import InvalidActionError, UnknownRouteError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.hierarchy import parse as parse_hierarchy
from mobileintent_gym.phone.query import find
from mobileintent_gym.phone.ui import center as middle
from tests.helpers import free_port

INJECTION = "a;echo PWNED $(id) 'x' \"y\""


def test_text_commands_quote_for_the_shell_and_escape_input_text():
    assert text_commands("hi there") == ["input text hi%sthere"]
    assert text_commands("it's") == ["input text 'it'\"'\"'s'"]
    assert text_commands("50%s off;") == ["input text 50%", "input text 's%soff;'"]
    assert text_commands("é", adb_keyboard=True) == ["am broadcast -a ADB_INPUT_B64 --es msg w6k="]
    with pytest.raises(UnsupportedTextError, match="'é'"):
        text_commands("café")
    with pytest.raises(UnsupportedTextError, match=r"'\\n'"):
        text_commands("a\nb")
    # A lone surrogate escaped as UnicodeEncodeError encoding it for ADBKeyboard.
    with pytest.raises(UnsupportedTextError, match=r"no keyboard types '\\ud800'"):
        text_commands("a\ud800", adb_keyboard=True)


@pytest.fixture
def device(local: LocalAdb) -> AdbDevice:
    local.thread.call(local.device.phone.reset, None, 0)
    adb = AdbDevice(AdbConfig(local.serial, server_port=local.server_port))
    adb.reset()
    yield adb
    adb.close()


def center(xml: str, match) -> tuple[int, int]:
    node = next(n for n in parse_hierarchy(xml).walk() if match(n))
    return (node.bounds[0] + node.bounds[2]) // 2, (node.bounds[1] + node.bounds[3]) // 2


def test_a_phone_is_driven_by_one_env_at_a_time(local, device):
    # Two envs on one phone (gym.make_vec of an adb: device) each took the other's taps
    # for their own, without an error.
    config = AdbConfig(local.serial, server_port=local.server_port)
    with pytest.raises(DeviceBusyError, match=f"device '{local.serial}' is driven by another "
                       "env on this machine: one phone takes one env at a time"):
        AdbDevice(config)
    code = ("import sys\nfrom mobileintent_gym.backends.adb import AdbConfig, AdbDevice\n"
            f"try:\n    AdbDevice(AdbConfig({local.serial!r}, server_port={local.server_port}))\n"
            "except Exception as err:\n    print(type(err).__name__)")
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert ran.stdout.strip() == "DeviceBusyError"  # another process is held off too
    device.close()
    again = AdbDevice(config)  # free once the first lets go
    assert (again.width, again.height) == (device.width, device.height)
    del again  # dropped without close: let go when collected, as a file object would be
    AdbDevice(config).close()


def test_reads_match_the_served_phone(local, device):
    phone = local.device.phone
    assert (device.width, device.height) == (1080, 2400)
    assert device.route() == "launcher"
    assert device.hierarchy() == local.thread.call(phone.hierarchy)
    assert (device.screenshot() == local.thread.call(phone.screenshot)).all()


def test_typed_text_reaches_the_field_literally_and_runs_nothing(local, device):
    device.act(Action.click(*center(device.hierarchy(), lambda n: n.desc == "Chat")))
    device.act(Action.click(*center(device.hierarchy(), lambda n: n.resource_id.endswith("/chat"))))
    fields = [n for n in parse_hierarchy(device.hierarchy()).walk() if n.cls.endswith("EditText")]
    device.act(Action.click(*center(device.hierarchy(), lambda n: n is fields[0]
                                    or n.bounds == fields[0].bounds)))
    history_before = local.thread.call(lambda: len(local.device.history))
    result = device.act(Action.type_text(INJECTION))
    ran = local.thread.call(lambda: list(local.device.history))[history_before:]
    assert result.event.typed == INJECTION
    assert local.thread.call(lambda: local.device.phone.events[-1].typed) == INJECTION
    assert any(n.text == INJECTION for n in parse_hierarchy(device.hierarchy()).walk())
    typing = [argv for argv in ran if argv[:2] == ("input", "text")]
    assert typing == [("input", "text", INJECTION.replace(" ", "%s"))]
    assert not [argv for argv in ran if argv[0] in ("echo", "id")]


def test_literal_percent_s_is_typed_as_written(local, device):
    local.thread.call(local.device.phone.open, "chat")
    device.act(Action.click(*center(device.hierarchy(), lambda n: n.resource_id.endswith("/chat"))))
    device.act(Action.click(*center(device.hierarchy(), lambda n: n.cls.endswith("EditText"))))
    device.act(Action.type_text("50%s off"))
    assert any(n.text == "50%s off" for n in parse_hierarchy(device.hierarchy()).walk())


def test_off_screen_point_is_rejected_before_sending(device):
    with pytest.raises(InvalidActionError, match="outside the 1080x2400 screen"):
        device.act(Action.click(2000, 10))


def test_actions_are_taken_in_every_form_the_simulated_phone_takes(local, device):
    # A string crashed: 'str' object has no attribute 'check_inside'.
    local.thread.call(local.device.phone.open, "chat")
    for action in ("PRESS[HOME]", action_to_dict(Action.press("HOME"))):
        assert device.act(action).event.action == "PRESS[HOME]"
        assert device.route() == "launcher"
        local.thread.call(local.device.phone.open, "chat")
    with pytest.raises(InvalidActionError, match="CLICK\\[1,2"):
        device.act("CLICK[1,2")


def test_a_failing_command_is_a_typed_error_with_its_output(local):
    """A phone without the music app: ``monkey -p`` fails, and its status and words show."""
    device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port))
    apps = local.device.phone.apps
    installed = local.thread.call(dict, apps)
    local.thread.call(apps.pop, "music")
    try:
        with pytest.raises(DeviceCommandError, match=r"monkey .* exited 252: .*No activities"):
            device.open("music")
    finally:
        local.thread.call(lambda: (apps.clear(), apps.update(installed)))


def test_unicode_text_types_end_to_end_through_the_adbkeyboard_broadcast(local):
    """``AdbConfig(adb_keyboard=True)``: text ``input text`` cannot type reaches the field."""
    local.thread.call(local.device.phone.reset, None, 0)
    device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port, adb_keyboard=True))
    device.open("chat")
    for rid in ("chat", "input"):
        device.act(Action.click(*middle(find(device.hierarchy(), resource_id=rid).bounds)))
    text = "Grüße 👋 你好\tœ"
    result = device.act(Action.type_text(text))
    assert result.event.typed == text and result.effect
    assert find(device.hierarchy(), resource_id="input").text == text
    assert local.thread.call(lambda: local.device.phone.events[-1].typed) == text


def test_a_device_that_vanishes_gives_a_clear_error_at_once(tmp_path):
    phone = SimPhone()
    phone.reset(seed=0)
    with LocalAdb(phone, shutil.which("adb"), free_port(), home=tmp_path) as local:
        assert local.connect() == "device"
        device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port, timeout=60))
        assert device.route() == "launcher"
        local.thread.stop()
        with pytest.raises(DeviceUnavailableError, match="unreachable") as caught:
            device.route()
        # At once: adb's own answer that the device is gone, not a wait for the timeout.
        assert caught.value.__cause__ is not None
        assert not isinstance(caught.value.__cause__, TimeoutError), caught.value.__cause__


def test_an_adb_server_that_never_answers_times_out_after_bounded_retries():
    """A listener that accepts and stays silent: timeouts, retried, then a typed error."""
    silent = socket.create_server(("127.0.0.1", 0))
    silent.listen(16)
    try:
        config = AdbConfig("x:1", server_port=silent.getsockname()[1], timeout=0.2, retries=2,
                           retry_delay=0.05)
        with pytest.raises(DeviceTimeoutError, match="after 3 attempt") as caught:
            AdbDevice(config)
        # Each attempt waited out its timeout: the last one's is the cause (adbutils').
        assert type(caught.value.__cause__).__name__ == "AdbTimeout"
        assert _connections_waiting(silent) == 1 + 3  # whether a server listens, 3 attempts
    finally:
        silent.close()


def _connections_waiting(listener: socket.socket) -> int:
    """How many connections ``listener`` has yet to accept (closed ones included)."""
    listener.setblocking(False)
    count = 0
    with contextlib.suppress(BlockingIOError):
        while True:
            listener.accept()[0].close()
            count += 1
    return count


class TricklingAdbServer:
    """An adb server (the protocol's host side, spoken here since no device can be made to
    trickle) that answers the handshake, then sends any other command's output a byte
    every 0.25 s for 10 s."""

    def __init__(self, features: bytes = b"shell_v2") -> None:
        self.features = features
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        def request() -> str:
            return connection.recv(int(connection.recv(4), 16)).decode()

        with connection, contextlib.suppress(OSError, ValueError):
            asked = request()
            if asked.endswith(":get-state"):
                connection.sendall(b"OKAY0006device")
            elif asked.endswith(":features"):
                connection.sendall(b"OKAY%04x%s" % (len(self.features), self.features))
            elif asked == "host:version":
                connection.sendall(b"OKAY00040028")  # 40: host:transport, as adb 1.0.40
            elif asked.startswith("host:transport:"):
                connection.sendall(b"OKAY")
                asked = request()
                connection.sendall(b"OKAY")
                if "wm size" in asked:
                    connection.sendall(b"Physical size: 1080x2400\n")
                    return
                for _ in range(40):
                    connection.sendall(b" ")
                    time.sleep(0.25)

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize("features", [b"shell_v2", b""])  # b"": before Android 7
def test_a_device_that_trickles_its_answer_times_out_per_command(features):
    # The timeout bounded each socket read, not the command: a byte every 0.25 s kept a
    # command with a 1 s timeout going for 10 s, and then it succeeded.
    # Without shell v2, actions go through adbutils' shell2, on a connection of its own.
    server = TricklingAdbServer(features)
    try:
        config = AdbConfig("fake:1", server_port=server.port, timeout=1.0, retries=0)
        device = AdbDevice(config)
        with pytest.raises(DeviceTimeoutError, match="after 1 attempt"):
            device.route()
        with pytest.raises(DeviceTimeoutError):
            AdbTransport(config).run("input keyevent 3")
    finally:
        server.close()


def test_missing_device_is_a_clear_error(local):
    with pytest.raises(DeviceUnavailableError, match=r"127\.0\.0\.1:1") as caught:
        AdbDevice(AdbConfig("127.0.0.1:1", server_port=local.server_port, timeout=3))
    assert caught.value.__cause__ is not None


def tour_step(phone_xml: str, step: str) -> Action:
    targets = {
        "music": lambda n: n.desc == "Music" or n.text == "Music",
        "chat": lambda n: n.desc == "Chat" or n.text == "Chat",
        "first_chat": lambda n: n.resource_id.endswith("/chat"),
        "field": lambda n: n.cls.endswith("EditText"),
        "contacts": lambda n: n.resource_id.endswith("/nav_contacts"),
    }
    if step in targets:
        return Action.click(*center(phone_xml, targets[step]))
    if step == "hold":
        return Action.long_click(*center(phone_xml, targets["first_chat"]))
    return {"up": Action.swipe("UP"), "down": Action.swipe("DOWN"), "back": Action.press("BACK"),
            "home": Action.press("HOME"), "enter": Action.press("ENTER"),
            "type": Action.type_text("see you at 5, ok?"), "done": Action.complete()}[step]


TOUR = ("music", "up", "up", "down", "back", "home", "chat", "up", "first_chat", "field", "type",
        "enter", "back", "back", "hold", "back", "contacts", "back", "home", "done")


def test_scripted_tour_gives_the_same_event_log_as_the_simulated_phone(local, device):
    direct = SimPhone()
    direct.reset(seed=0)
    start = local.thread.call(lambda: len(local.device.phone.events))  # after reset()'s HOME
    for step in TOUR:
        action = tour_step(direct.hierarchy(), step)
        expected = direct.act(action).event
        got = device.act(action).event
        assert (got.action, got.route_before, got.route_after) == (
            expected.action, expected.route_before, expected.route_after), step
    served = local.thread.call(lambda: list(local.device.phone.events))[start:]
    assert [(e.action, e.route_before, e.route_after, e.hit, e.visible, e.typed, e.effect)
            for e in served] == [
        (e.action, e.route_before, e.route_after, e.hit, e.visible, e.typed, e.effect)
        for e in direct.events if e.action != "COMPLETE"]
    assert len({e.route_after for e in direct.events}) >= 4


def test_open_launches_a_built_in_app_and_the_next_action_sees_it(local, device):
    device.act(Action.press("HOME"))
    device.open("chat")
    assert device.route() == "chat/chats"
    event = device.act(Action.swipe("UP")).event
    assert event.route_before == "chat/chats" and event.visible  # dumped after open()
    with pytest.raises(UnknownRouteError, match="'mail'"):
        device.open("mail")


def test_open_starts_an_app_at_its_home_screen_as_the_simulated_phone_does(local, device):
    # The launcher's intent brings a started app back where it was left: an episode
    # started on the screen the last one ended on, where SimPhone.open starts afresh.
    device.open("chat")
    x, y = center(device.hierarchy(), lambda n: n.resource_id.endswith("/chat"))
    device.act(Action.click(x, y))
    assert device.route() == "chat/conversation"
    device.reset()
    device.open("chat")
    assert device.route() == "chat/chats"


class _Link:
    """A stand-in adb link that records the commands and answers reads with ``answer``."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def run(self, command: str) -> str:
        self.commands.append(command)
        return ""

    def read(self, command: str) -> str:
        self.commands.append(command)
        return self.answer(command)


def _stand_in(link: _Link, timeout: float = 10.0) -> AdbDevice:
    device = object.__new__(AdbDevice)  # no connection: the link answers
    device.config = AdbConfig("phone", timeout=timeout, retry_delay=0.01)
    device._link, device._dump, device.events = link, None, []
    return device


class _Launching(_Link):
    """A phone that starts an app slowly: ``dumpsys window`` shows the launcher in front
    for ``slow`` reads after ``monkey``. The virtual device this machine serves starts an
    app within the command, so it cannot show the wait."""

    def __init__(self, slow: int) -> None:
        super().__init__()
        self.slow = slow

    def answer(self, command: str) -> str:
        launched = any(c.startswith("monkey") for c in self.commands)
        waited = sum(c == command for c in self.commands) > self.slow
        front = ("com.mobileintent.chat/.ChatActivity" if launched and waited
                 else "com.android.launcher3/.Launcher")
        return f"  mCurrentFocus=Window{{7d1e2f0 u0 {front}}}\n"


def _launching(slow: int, timeout: float) -> AdbDevice:
    return _stand_in(_Launching(slow), timeout)


def test_open_waits_until_the_app_is_in_front():
    device = _launching(slow=3, timeout=5.0)
    device.open("chat")
    reads = [c for c in device._link.commands if c.startswith("dumpsys")]
    assert len(reads) == 4  # the launcher three times, then the app: open returns then
    assert device._link.commands[:2] == [
        "am force-stop com.mobileintent.chat",
        "monkey -p com.mobileintent.chat -c android.intent.category.LAUNCHER 1"]


def test_an_app_that_never_comes_to_the_front_is_named_with_what_is_there():
    device = _launching(slow=10**6, timeout=0.05)
    with pytest.raises(DeviceTimeoutError, match=r"com\.mobileintent\.chat did not come to "
                       r"the front of 'phone' within 0\.05 s of its launch; the focus is "
                       r"on com\.android\.launcher3/\.Launcher"):
        device.open("chat")


@pytest.mark.parametrize(("answer", "size"), [
    ("Physical size: 1080x2400\n", (1080, 2400)),
    # A phone run below its panel's resolution: screenshots and taps use the override.
    ("Physical size: 1440x3200\nOverride size: 1080x2400\n", (1080, 2400)),
])
def test_the_screen_size_is_the_override_where_one_is_set(answer, size):
    from mobileintent_gym.backends.adb import _screen_size

    assert _screen_size(answer, "phone") == size


def test_an_unreadable_screen_size_is_quoted():
    from mobileintent_gym.backends.adb import _screen_size

    with pytest.raises(DeviceCommandError, match=r"'phone'.*'wm: not found'"):
        _screen_size("wm: not found\n", "phone")


@pytest.mark.parametrize("answer", ["Physical size: 0x0\n", "Physical size: 1080x0\n",
                                    "Physical size: 99999999999x2400\n",
                                    "Physical size: 20000x40000\n"])
def test_a_screen_size_no_phone_has_is_refused(answer):
    # 0x0 failed deep inside Gymnasium's Box; a 1e9-pixel side was taken for the screen.
    from mobileintent_gym.backends.adb import _screen_size

    with pytest.raises(DeviceCommandError, match=r"1-16384 pixels a side"):
        _screen_size(answer, "phone")


def _png(width, height):
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height)).save(out, "PNG")
    return out.getvalue()


def _claiming(width, height):
    """A 1x1 PNG whose header (its CRC made right) claims ``width`` x ``height``."""
    import struct
    import zlib

    data = _png(1, 1)
    header = data[12:16] + struct.pack(">II", width, height) + data[24:29]
    return data[:12] + header + struct.pack(">I", zlib.crc32(header)) + data[33:]


class _Screencap:
    """A stand-in link answering ``screencap -p`` with canned bytes: a phone turned to
    landscape, a device answering garbage, cannot be made by the virtual device."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read_bytes(self, command: str) -> bytes:
        assert command == "screencap -p"
        return self.data


@pytest.mark.parametrize(("data", "said"), [
    (_png(1080, 2400), None),
    (_png(2400, 1080), "screencap gave a 2400x1080 screen where the device said 1080x2400 "
                       "(turned to landscape?)"),
    (_png(10, 10), "a 10x10 screen"),
    (b"not a png", "screencap gave no readable PNG"),
    # A header claiming 20000x20000: PIL's DecompressionBombError escaped as it was.
    (_claiming(20000, 20000), "no readable PNG (Image size (400000000 pixels) exceeds"),
])
def test_a_screenshot_is_a_png_of_the_screens_size(data, said):
    device = object.__new__(AdbDevice)  # no connection: the link answers
    device.width, device.height, device._link = 1080, 2400, _Screencap(data)
    if said is None:
        assert device.screenshot().shape == (2400, 1080, 3)
    else:
        with pytest.raises(DeviceCommandError, match=re.escape(said)):
            device.screenshot()


class _Answers:
    """A stand-in adb link giving one canned answer to a read: the device outputs below
    (an old build's linker warning, a stream cut short) cannot be made by the virtual
    device this machine serves."""

    def __init__(self, answer: str) -> None:
        self.answer, self.commands = answer, []

    def read(self, command: str) -> str:
        self.commands.append(command)
        return self.answer


DUMP = "<?xml version='1.0' ?><hierarchy rotation=\"0\"><node bounds=\"[0,0][1,1]\"/></hierarchy>"


LINKER = "WARNING: linker: libdvm.so has text relocations. This is wasting memory.\n"
SAID = "UI hierchary dumped to: /sdcard/window_dump.xml\n"


@pytest.mark.parametrize(("answer", "error"), [
    (DUMP, None), ("\n" + DUMP + "\r\n", None), (LINKER + SAID + DUMP, None),
    (DUMP[:50], "cut short after 50 characters"),  # the device went away mid-answer
    ("ERROR: null root node returned by UiTestAutomationBridge.\ncat: "
     "/sdcard/window_dump.xml: No such file or directory\n",
     "dump failed: 'ERROR: null root node returned by UiTestAutomationBridge.\\ncat: "),
])
def test_a_dump_is_read_whole_or_refused(answer, error):
    device = object.__new__(AdbDevice)  # no connection: the link below answers
    device.config, device._link = AdbConfig("emulator-5554"), _Answers(answer)
    if error is None:
        assert device.hierarchy() == DUMP
    else:
        with pytest.raises(DeviceCommandError, match=re.escape(error)):
            device.hierarchy()
    (command,) = device._link.commands
    # A stale dump never reads, and what uiautomator says comes back: a device's
    # "ERROR: could not get idle state." was dropped with its linker warnings (>/dev/null).
    assert command == ("rm -f /sdcard/window_dump.xml; uiautomator dump "
                       "/sdcard/window_dump.xml 2>&1; cat /sdcard/window_dump.xml")


def test_a_dump_that_fails_quotes_what_the_device_said(local):
    # Through the real adb binary: the served shell's refusal is quoted whole.
    adb = AdbDevice(AdbConfig(local.serial, server_port=local.server_port,
                              dump_path="/system/window_dump.xml"))
    with pytest.raises(DeviceCommandError, match=r"dump failed: '/system/bin/sh: "
                                                 r"/system/window_dump.xml: Permission denied"):
        adb.hierarchy()


class _Focused(_Link):
    """A phone whose ``dumpsys window`` answer is ``focus``."""

    def __init__(self, focus: str) -> None:
        super().__init__()
        self.focus = focus

    def answer(self, command: str) -> str:
        return self.focus


def _focused(focus: str) -> AdbDevice:
    return _stand_in(_Focused(focus))


LAUNCHER = "  mCurrentFocus=Window{7d1e2f0 u0 com.android.launcher3/.Launcher}\n"


def test_reset_presses_home_only_when_no_launcher_is_in_front():
    # A served phone counts the press as an action: its clock ran one ahead of SimPhone's.
    on_launcher = _focused(LAUNCHER)
    on_launcher.reset()
    assert on_launcher._link.commands == ["dumpsys window windows"]
    in_app = _focused("  mCurrentFocus=Window{7d1e2f0 u0 com.mobileintent.chat/.ChatActivity}\n")
    in_app.reset()
    assert in_app._link.commands == ["dumpsys window windows", "input keyevent 3"]


def test_the_route_is_the_focused_windows_before_the_focused_apps():
    # While an app starts, its activity is the focused app before its window has the focus.
    starting = _focused(LAUNCHER + "  mFocusedApp=ActivityRecord{5c2b1a0 u0 "
                                   "com.mobileintent.chat/.ChatActivity t12}\n")
    assert starting.route() == "launcher"
    between = _focused("  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{5c2b1a0 u0 "
                       "com.mobileintent.chat/.ChatActivity t12}\n")
    assert between.route() == route_from_component("com.mobileintent.chat", ".ChatActivity")


def test_an_answer_outside_the_adb_protocol_is_a_device_error():
    # adbutils reads a length that is no hex number ('OKAYzzzz') with int(): the
    # ValueError escaped as it was, a traceback from evaluate. (A server answering so
    # cannot be made here: the transport's call is given the function that raises.)
    adbutils = pytest.importorskip("adbutils", reason="needs the [android] extra")
    link = object.__new__(AdbTransport)
    link.config, link._adbutils = AdbConfig("phone", retries=0), adbutils
    link._server_use = None  # open, holding no lock

    def misread():
        return int("zzzz", 16)

    with pytest.raises(DeviceCommandError, match=r"'dump': the adb server or 'phone' answered "
                       r"outside the adb protocol \(invalid literal"):
        link._call(misread, "dump", retry=True)


def test_an_answer_without_end_is_cut_at_its_limit(monkeypatch):
    # A device that streams without end filled 4.7 GB of memory before the deadline.
    from mobileintent_gym.backends import adb_transport

    monkeypatch.setattr(adb_transport, "MAX_ANSWER", 1 << 20)

    class Endless:
        def read(self, size):
            return b"x" * size

    with pytest.raises(DeviceCommandError, match="answer passed 1 MiB without ending"):
        adb_transport._until_close(Endless())


@pytest.mark.parametrize(("given", "says"), [
    ({"timeout": -1}, "timeout must be a number of seconds above 0, got -1"),
    ({"timeout": float("nan")}, "timeout must be a number of seconds above 0, got nan"),
    ({"retries": -1}, "retries must be an integer of at least 0, got -1"),
    ({"server_port": 70000}, "server_port must be a port in 1-65535, got 70000"),
    ({"retry_delay": -0.5}, "retry_delay must be a number of seconds of at least 0"),
])
def test_a_config_no_device_could_be_reached_with_is_refused_naming_the_value(given, says):
    # timeout=-1 raised a bare "Timeout value out of range" from the socket; retries=-1 made
    # route() say "no focused window" without asking the device.
    from mobileintent_gym.backends.loader import DeviceConfigError

    with pytest.raises(DeviceConfigError, match=re.escape(says)):
        AdbConfig("phone", **given)


def test_an_adb_server_port_variable_that_is_no_number_is_named(monkeypatch):
    from mobileintent_gym.backends.loader import DeviceConfigError

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "abc")
    with pytest.raises(DeviceConfigError, match=r"\$ANDROID_ADB_SERVER_PORT must be a port "
                                                r"number, got 'abc'"):
        AdbConfig("phone")


def test_the_last_env_to_let_go_of_a_started_server_stops_it(tmp_path, monkeypatch):
    # The shared locks of two envs (as two processes' would be: one descriptor each).
    from mobileintent_gym.backends import device_lock

    monkeypatch.setattr(device_lock, "lock_folder", lambda: tmp_path)
    first, second = (device_lock.use_server("localhost:5037") for _ in range(2))
    with device_lock.last_use("localhost:5037", first) as last:
        assert not last  # not started by one of ours: never stopped
    device_lock.mark_started("localhost:5037")
    third = device_lock.use_server("localhost:5037")
    with device_lock.last_use("localhost:5037", second) as last:
        assert not last  # the third still uses it
    with device_lock.last_use("localhost:5037", third) as last:
        assert last
    assert not list(tmp_path.glob("*.started"))  # the note goes with the server


def test_a_server_stays_where_its_starter_has_ended_or_no_lock_can_tell(tmp_path, monkeypatch):
    # A note left by a starter that was killed made a later env stop a server it had found
    # running (the user's own, started since); without flock every env seemed the last.
    from mobileintent_gym import files
    from mobileintent_gym.backends import device_lock

    monkeypatch.setattr(device_lock, "lock_folder", lambda: tmp_path)
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True).stdout.strip()
    device_lock.mark_started("localhost:5037")
    (note,) = tmp_path.glob("*.started")
    note.write_text(ended)  # as a starter killed since left it
    with device_lock.last_use("localhost:5037", device_lock.use_server("localhost:5037")
                              ) as last:
        assert not last
    assert not list(tmp_path.glob("*.started"))  # the stale note is gone
    device_lock.mark_started("localhost:5037")
    monkeypatch.setattr(files, "fcntl", None)  # as on Windows
    with device_lock.last_use("localhost:5037", device_lock.use_server("localhost:5037")
                              ) as last:
        assert not last
    monkeypatch.setattr(device_lock, "_lock", lambda *args, **kwargs: None)  # no lock file
    with device_lock.last_use("localhost:5037", None) as last:
        assert not last
