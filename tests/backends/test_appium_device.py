"""AppiumDevice's command mapping, checked against a small local W3C WebDriver endpoint.

No Appium server or Android SDK runs here: the endpoint below is written for this test. It
answers the W3C/Appium routes AppiumDevice uses from a SimPhone (so real screens and
hierarchies come back) and records every request for the assertions.
"""

import base64
import io
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.actions import Action, action_to_dict
from mobileintent_gym.adbd.conventions import activity_for, swipe_gesture
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone import SimPhone
from tests.helpers import free_port

pytest.importorskip("appium", reason="Appium-Python-Client is not installed")


class FakeAppium(BaseHTTPRequestHandler):
    phone: SimPhone
    requests: list

    def log_message(self, *args):
        pass

    def _reply(self, value, status=200):
        body = json.dumps({"value": value}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _route(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.removeprefix("/session/s1")
        self.requests.append((method, path, body))
        if path in getattr(self, "failing", ()):
            return self._reply({"error": "unknown error", "message": f"{path} failed",
                                "stacktrace": ""}, 500)
        phone = self.phone
        if (method, path) == ("POST", "/session"):
            caps = body["capabilities"]["alwaysMatch"]
            return self._reply({"sessionId": "s1", "capabilities": caps})
        if path == "/window/rect":
            return self._reply({"x": 0, "y": 0, "width": phone.width, "height": phone.height})
        if path == "/screenshot":
            png = io.BytesIO()
            Image.fromarray(phone.screenshot()).save(png, format="PNG")
            return self._reply(base64.b64encode(png.getvalue()).decode())
        if path == "/source":
            return self._reply(phone.hierarchy())
        script = body.get("script") if path == "/execute/sync" else None
        if script == "mobile: getCurrentPackage":
            return self._reply(phone.foreground_package())
        if script == "mobile: getCurrentActivity":
            component = activity_for(phone.foreground_package(), phone.route())
            return self._reply(component.split("/", 1)[1])
        if script == "mobile: activateApp":
            phone.open(phone.packages()[body["args"][0]["appId"]])
            return self._reply(None)
        if path == "/actions":
            return self._reply(self._pointer(body["actions"][0]["actions"]))
        if script == "mobile: pressKey":
            key = {3: "HOME", 4: "BACK", 66: "ENTER"}[body["args"][0]["keycode"]]
            return self._reply(phone.act(Action.press(key)) and None)
        if path == "/element/e1/value":
            return self._reply(phone.act(Action.type_text(body["text"])) and None)
        if path == "/element/active" and getattr(self, "unfocused", False):
            return self._reply({"error": "no such element", "message": "No element is "
                                "focused", "stacktrace": ""}, 404)
        if path == "/element/active":
            return self._reply({"element-6066-11e4-a52e-4f735466cecf": "e1"})
        return self._reply(None)

    def _pointer(self, sequence):
        """A W3C pointer sequence on the phone: a tap, a long press or a drag."""
        moves = [(a["x"], a["y"]) for a in sequence if a["type"] == "pointerMove"]
        held = sum(a.get("duration", 0) for a in sequence if a["type"] == "pause")
        if len(moves) == 2:  # the canonical gesture is a SWIPE, as on the virtual adb device
            phone = self.phone
            direction = next((d for d in ("UP", "DOWN", "LEFT", "RIGHT") if swipe_gesture(
                d, phone.width, phone.height) == (*moves[0], *moves[1])), None)
            if direction is None:
                phone.swipe_between(*moves[0], *moves[1])
            else:
                phone.act(Action.swipe(direction))
        elif held >= 500:
            self.phone.act(Action.long_click(*moves[0]))
        else:
            self.phone.act(Action.click(*moves[0]))

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def do_DELETE(self):
        self._route("DELETE")


@pytest.fixture
def endpoint():
    phone = SimPhone()
    phone.open("music")
    handler = type("Handler", (FakeAppium,), {"phone": phone, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    stopped = []

    def stop() -> None:
        if not stopped:
            stopped.append(server.shutdown())
            server.server_close()

    handler.stop = staticmethod(stop)
    yield f"http://127.0.0.1:{server.server_port}", handler
    stop()


def test_the_tour_logs_what_simphone_logs(endpoint):
    """Hits, visible records, routes and effects from page sources equal SimPhone's own log."""
    from mobileintent_gym.backends.appium import AppiumDevice
    from mobileintent_gym.phone.tour import plan

    url, handler = endpoint
    handler.phone.reset(seed=0)
    direct = SimPhone()
    device = AppiumDevice(url)
    device.reset()
    for _, step in plan(direct.apps.values())[1:]:
        action = step(direct.hierarchy())
        device.act(action)
        direct.act(action)
    fields = ("action", "route_before", "route_after", "hit", "visible", "visible_after",
              "effect")
    assert [[getattr(e, f) for f in fields] for e in device.events] == [
        [getattr(e, f) for f in fields] for e in direct.events]
    assert sum(e.hit is not None for e in device.events) >= 15


def test_session_uses_uiautomator2_options(endpoint):
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url, udid="emulator-5554")
    caps = handler.requests[0][2]["capabilities"]["alwaysMatch"]
    assert caps["platformName"] == "Android"
    assert caps["appium:automationName"] == "UIAutomator2"
    assert caps["appium:udid"] == "emulator-5554" and caps["appium:noReset"] is True
    assert (device.width, device.height) == (1080, 2400)


def test_reads_map_to_screenshot_source_and_current_activity(endpoint):
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    assert np.array_equal(device.screenshot(), handler.phone.screenshot())
    assert device.hierarchy() == handler.phone.hierarchy()
    assert device.route() == "music/home"


def test_actions_map_to_w3c_pointer_actions_keycodes_and_send_keys(endpoint):
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    start = len(handler.requests)
    device.act(Action.click(100, 200))
    device.act(Action.long_click(100, 200))
    device.act("SWIPE[UP]")  # the string and the action-space forms, as SimPhone takes
    device.act(action_to_dict(Action.press("BACK")))
    device.act(Action.type_text("héllo; $(id)"))
    sent = [(m, p, b) for m, p, b in handler.requests[start:]
            if "getCurrent" not in b.get("script", "")]
    actions = [b["actions"][0]["actions"] for m, p, b in sent if p == "/actions"]
    assert len(actions) == 3
    moves = [[(a["x"], a["y"]) for a in seq if a["type"] == "pointerMove"] for seq in actions]
    assert moves[0] == [(100, 200)] and moves[1] == [(100, 200)]
    assert moves[2] == [(540, 1680), (540, 720)]
    assert any(a.get("duration") == 1000 for a in actions[1] if a["type"] == "pause")
    keys = [b["args"][0]["keycode"] for m, p, b in sent if b.get("script") == "mobile: pressKey"]
    assert keys == [4]
    typed = [b for m, p, b in sent if p == "/element/e1/value"]
    assert typed and typed[0]["text"] == "héllo; $(id)"
    assert [e.action for e in device.events][-1] == "TYPE[héllo; $(id)]"


def test_open_activates_the_apps_package(endpoint):
    from mobileintent_gym.backends.appium import AppiumDevice
    from mobileintent_gym.errors import UnknownRouteError

    url, handler = endpoint
    device = AppiumDevice(url)
    device.open("chat")
    calls = [b for m, p, b in handler.requests if b.get("script") == "mobile: activateApp"]
    assert [c["args"][0]["appId"] for c in calls] == ["com.mobileintent.chat"]
    assert device.route() == "chat/chats"
    with pytest.raises(UnknownRouteError, match="'mail'"):
        device.open("mail")


def test_nothing_listening_is_the_device_unavailable_error():
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.loader import load_device

    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(DeviceUnavailableError, match="no Appium session at") as caught:
        load_device(f"appium:{url}")  # unfixed: urllib3's MaxRetryError
    assert url in str(caught.value) and caught.value.__cause__ is not None


def test_a_server_that_goes_away_mid_session_is_the_device_unavailable_error(endpoint):
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.stop()
    with pytest.raises(DeviceUnavailableError, match="unreachable during screenshot"):
        device.screenshot()


def test_a_session_whose_first_call_fails_is_ended(endpoint):
    # The session was left on the server, which keeps one for its new-command timeout.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    handler.failing = {"/window/rect"}
    with pytest.raises(MobileIntentError, match="window size"):
        AppiumDevice(url)
    assert [(m, p) for m, p, _ in handler.requests] == [
        ("POST", "/session"), ("GET", "/window/rect"), ("DELETE", "")]


def test_a_server_that_never_answers_times_out():
    # No timeout was set: a server that took the connection and said nothing was waited
    # for without end (Selenium's default is the socket default, None).
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.appium import AppiumDevice

    silent = socket.create_server(("127.0.0.1", 0))
    taken = []
    threading.Thread(target=lambda: taken.append(silent.accept()), daemon=True).start()
    try:
        with pytest.raises(DeviceUnavailableError, match=r"no Appium session at .*timed out"):
            AppiumDevice(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=1)
    finally:
        silent.close()
        for connection, _ in taken:
            connection.close()


def test_type_without_a_focused_field_types_nothing_as_on_the_simulated_phone(endpoint):
    # UiAutomator2 answers "no such element" when nothing has the focus: that ended the
    # episode with DeviceCommandError where the simulated phone types nothing.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    handler.unfocused = True
    device = AppiumDevice(url)
    result = device.act("TYPE[hello]")
    assert not result.effect and result.event.typed is None
    assert not [p for m, p, b in handler.requests if p.endswith("/value")]


def test_closing_after_the_server_went_away_does_not_raise(endpoint):
    # close() runs in finally blocks: its DeviceUnavailableError hid the run's own error.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.stop()
    device.close()


def test_a_screenshot_of_another_size_than_the_window_is_refused(endpoint):
    # Appium's screenshot was decoded whatever its size (adb's was checked): a frame of a
    # phone turned to landscape lay outside the observation space.
    from mobileintent_gym.backends.adb_transport import DeviceCommandError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, _handler = endpoint
    device = AppiumDevice(url)
    assert device.screenshot().shape == (device.height, device.width, 3)
    device.width, device.height = device.height, device.width  # the window turned
    with pytest.raises(DeviceCommandError, match=r"Appium's screenshot gave a 1080x2400 screen "
                       r"where the device said 2400x1080 \(turned to landscape\?\)"):
        device.screenshot()
