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
import time
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

    def _page(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _route(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.removeprefix("/session/s1")
        self.requests.append((method, path, body))
        time.sleep(getattr(self, "slow", {}).get(path, 0))
        if path in getattr(self, "failing", ()):
            return self._reply({"error": "unknown error", "message": f"{path} failed",
                                "stacktrace": ""}, 500)
        if path in getattr(self, "proxied", ()):  # a proxy's error page, no W3C body
            status = getattr(self, "proxied_status", 502)
            return self._page(status, f"<html><body>{status} Bad Gateway</body></html>".encode())
        if getattr(self, "ended", False) and path != "/session":
            return self._reply({"error": "invalid session id", "message": "A session is "
                                "either terminated or not started", "stacktrace": ""}, 404)
        phone = self.phone
        if (method, path) == ("POST", "/session"):
            caps = body["capabilities"]["alwaysMatch"]
            return self._reply({"sessionId": "s1", "capabilities": caps})
        if path == "/window/rect":  # as UiAutomator2 gives it: without the navigation bar
            return self._reply({"x": 0, "y": 0, "width": phone.width,
                                "height": phone.height - 126})
        if path == "/screenshot":
            png = io.BytesIO()
            Image.fromarray(phone.screenshot()).save(png, format="PNG")
            return self._reply(base64.b64encode(png.getvalue()).decode())
        if path == "/source":
            return self._reply(phone.hierarchy())
        script = body.get("script") if path == "/execute/sync" else None
        if script == "mobile: getCurrentPackage":
            if getattr(self, "unfocused_reads", 0):  # windows changing: no app has the focus
                type(self).unfocused_reads -= 1
                return self._reply(None)
            return self._reply(phone.foreground_package())
        if script == "mobile: getCurrentActivity" and getattr(self, "no_activity_reads", 0):
            type(self).no_activity_reads -= 1
            return self._reply(None)
        if script == "mobile: getCurrentActivity":
            component = activity_for(phone.foreground_package(), phone.route())
            return self._reply(component.split("/", 1)[1])
        if script == "mobile: activateApp":  # as Android does: a started app comes back
            app = phone.packages()[body["args"][0]["appId"]]  # as it was left, and later
            if app not in self.stopped and app in self.left:
                phone.open(app, self.left[app])
            else:
                phone.open(app)
            self.stopped.discard(app)
            type(self).unfocused_reads = getattr(self, "starting_reads", 0)
            return self._reply(None)
        if script == "mobile: terminateApp":
            self.stopped.add(phone.packages()[body["args"][0]["appId"]])
            return self._reply(True)
        if script == "mobile: pressKey" and body["args"][0]["keycode"] == 3:
            self.left[phone.route().split("/")[0]] = phone.route()
        if path == "/actions":
            return self._reply(self._pointer(body["actions"][0]["actions"]))
        if script == "mobile: pressKey":
            key = {3: "HOME", 4: "BACK", 66: "ENTER"}[body["args"][0]["keycode"]]
            return self._reply(phone.act(Action.press(key)) and None)
        if path == "/element/e1/value":
            return self._reply(phone.act(Action.type_text(body["text"])) and None)
        if path == "/element/active" and getattr(self, "broken_focus", False):
            return self._reply({"error": "unknown error", "message": "UiAutomator2 crashed",
                                "stacktrace": ""}, 500)
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
    handler = type("Handler", (FakeAppium,), {"phone": phone, "requests": [], "left": {},
                                              "stopped": set()})
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
    with pytest.raises(DeviceUnavailableError, match="could not be reached to take a screenshot"):
        device.screenshot()


def test_a_session_whose_first_call_fails_is_ended(endpoint):
    # The session was left on the server, which keeps one for its new-command timeout.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    handler.failing = {"/screenshot"}
    with pytest.raises(MobileIntentError, match="take a screenshot"):
        AppiumDevice(url)
    assert [(m, p) for m, p, _ in handler.requests] == [
        ("POST", "/session"), ("GET", "/screenshot"), ("DELETE", "")]


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


def test_the_screen_is_the_screenshots_not_the_window_without_its_navigation_bar(endpoint):
    # The size came from the window rect, which UiAutomator2 gives without the navigation
    # bar: every screenshot was refused as of another size, the bar's strip untappable.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, _handler = endpoint
    device = AppiumDevice(url)
    assert (device.width, device.height) == (1080, 2400)
    assert device.screenshot().shape == (2400, 1080, 3)
    device.act(Action.click(540, 2350))  # within the navigation bar's strip


def test_open_brings_the_app_to_its_home_screen_and_waits_until_it_is_in_front(endpoint):
    # Activating a started app brought it back where the last episode left it, and the
    # next read could be of the launcher still.
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    device.open("music")
    handler.phone.open("music", "music/search")
    device.reset()  # HOME: the music app is left on its search screen
    handler.starting_reads = 2  # the activated app is not in front for two reads
    device.open("music")
    scripts = [b.get("script") for _, _, b in handler.requests if "script" in b]
    assert scripts[-5:-3] == ["mobile: terminateApp", "mobile: activateApp"]
    assert device.route() == "music/home"


def test_an_app_that_never_comes_to_the_front_is_the_timeout_error(endpoint):
    from mobileintent_gym.backends.adb_transport import DeviceTimeoutError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url, timeout=1)
    handler.starting_reads = 10 ** 6
    with pytest.raises(DeviceTimeoutError, match=r"com\.mobileintent\.chat was not in front 1 s"):
        device.open("chat")


def test_a_route_read_while_no_app_has_the_focus_is_read_again(endpoint):
    # UiAutomator2 reports a null package while windows change: AttributeError deep in
    # the route's parsing.
    from mobileintent_gym.backends.adb_transport import DeviceCommandError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.unfocused_reads = 2
    assert device.route() == "music/home"
    handler.no_activity_reads = 2  # a package, but no activity yet
    assert device.route() == "music/home"
    handler.unfocused_reads = 10 ** 6
    with pytest.raises(DeviceCommandError, match="reports no app in focus"):
        device.route()


@pytest.mark.parametrize("status", [400, 403, 404, 502])
def test_a_proxys_error_page_is_an_error_not_an_answer(endpoint, status):
    # An HTTP error without a W3C body passed as the answer: a BACK that never reached the
    # phone was logged as "no effect", a screenshot failed in base64 decoding.
    from mobileintent_gym.backends.adb_transport import DeviceCommandError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.proxied, handler.proxied_status = {"/screenshot", "/execute/sync"}, status
    with pytest.raises(DeviceCommandError, match=f"could not take a screenshot: HTTP {status}: "
                                                 f"<html><body>{status} Bad Gateway"):
        device.screenshot()
    with pytest.raises(DeviceCommandError, match=f"read the current package: HTTP {status}"):
        device.act("PRESS[BACK]")


def test_an_answer_outside_the_protocol_is_the_command_error(endpoint):
    from mobileintent_gym.backends.adb_transport import DeviceCommandError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.stop()
    server = ThreadingHTTPServer(("127.0.0.1", int(url.rsplit(":", 1)[1])), type(
        "Null", (BaseHTTPRequestHandler,), {"do_GET": lambda self: FakeAppium._reply(
            self, None), "log_message": lambda *a: None}))
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        with pytest.raises(DeviceCommandError, match="asked to take a screenshot is not the "
                                                     "protocol's"):
            device.screenshot()
    finally:
        server.shutdown()
        server.server_close()


def test_an_ended_session_is_the_unavailable_error_and_close_stays_quiet(endpoint):
    # A session Appium ended (idle past newCommandTimeout) read as an ordinary command
    # failure, and close() raised "could not quit" over the run's own error.
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url, new_command_timeout=60)
    handler.ended = True
    with pytest.raises(DeviceUnavailableError, match=r"session at .* has ended \(idle longer "
                                                     r"than its new-command timeout, 60 s"):
        device.act("PRESS[BACK]")
    device.close()
    device.close()  # once is enough: a second close asks nothing
    assert [m for m, p, _ in handler.requests].count("DELETE") == 1


def test_an_answer_that_does_not_come_in_time_is_not_asked_for_again(endpoint):
    # urllib3 retried a read that timed out three times: a screenshot waited 4 x timeout.
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url, timeout=1)
    handler.slow = {"/screenshot": 3}
    with pytest.raises(DeviceUnavailableError, match="could not be reached to take a screen"):
        device.screenshot()
    assert [p for _, p, _ in handler.requests].count("/screenshot") == 2  # the first's, one


@pytest.mark.filterwarnings("ignore:Embedding username and password in URL")
def test_a_url_s_user_name_and_key_are_shown_in_no_message_or_record():
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.loader import public_spec, public_url

    assert public_url("http://alice:s3cr3t@farm.example:443/wd/hub") == (
        "http://***@farm.example:443/wd/hub")
    assert public_spec("appium:https://key@farm.example") == "appium:https://***@farm.example"
    assert public_spec("adb:emulator-5554") == "adb:emulator-5554"
    assert public_spec(" appium: https://k@farm") == "appium:https://***@farm"  # as loaded
    assert public_spec("appium : https://k@farm") == "appium:https://***@farm"
    assert public_url("http://u:p@ss@host") == "http://***@host"  # an "@" in the key
    assert public_url("http://u:k@[::1:4723/wd/hub") == "http://***@[::1:4723/wd/hub"
    assert public_url("http://host:80/wd/a@b") == "http://host:80/wd/a@b"  # a path's @
    from mobileintent_gym.backends.loader import DeviceConfigError, parse_device

    with pytest.raises(DeviceConfigError) as refused:
        parse_device("appium:user:s3cr3t@farm.example:443")  # no scheme: the hint shows it
    assert "s3cr3t" not in str(refused.value) and "'appium:http://***@farm" in str(refused.value)
    url = f"http://alice:s3cr3t@127.0.0.1:{free_port()}"
    with pytest.raises(DeviceUnavailableError) as caught:
        from mobileintent_gym.backends.loader import load_device

        load_device(f"appium:{url}")
    assert "s3cr3t" not in str(caught.value) and "***@127.0.0.1" in str(caught.value)


@pytest.mark.parametrize("raw", ["s3/cr3t", "s3?cr3t", "s3#cr3t", "/s3cr3t"])
def test_a_key_with_a_raw_slash_question_mark_or_hash_is_refused_unshown(raw):
    # They end the URL's host part: a request went to host "alice" on port "s3", and the
    # errors quoted the URL and the "port" whole; the option parser quoted what follows "?".
    from mobileintent_gym.backends.appium import AppiumDevice
    from mobileintent_gym.backends.loader import (
        DeviceConfigError,
        load_device,
        parse_device,
        public_url,
    )

    url = f"http://alice:{raw}@127.0.0.1:{free_port()}/wd/hub"
    assert public_url(url) == f"http://***@127.0.0.1:{url.rsplit(':', 1)[1]}"
    assert public_url(f"see {url}: x@y") == f"see {public_url(url)}: x@y"  # a space ends it
    for build in (lambda: parse_device(f"appium:{url}"), lambda: load_device(f"appium:{url}"),
                  lambda: AppiumDevice(url)):
        with pytest.raises(DeviceConfigError, match="percent-encoded") as refused:
            build()
        assert "s3" not in str(refused.value) and "cr3t" not in str(refused.value)
        assert "http://***@127.0.0.1:" in str(refused.value)


def test_a_path_or_ipv6_host_is_no_key():
    from mobileintent_gym.backends.loader import check_url_secret, public_url

    for url in ("http://host:80/wd/a@b", "http://[::1]/a@b", "http://[::1]:4723/a@b",
                "http://host/wd/a@b", "http://alice:s3cr%2F3t@farm:443/wd/hub"):
        check_url_secret(url)
        assert "***" not in public_url(url) or url.startswith("http://alice")
    assert public_url("http://alice:s3cr%2F3t@farm:443/wd/hub") == "http://***@farm:443/wd/hub"


def test_one_env_drives_a_phone_at_a_time(endpoint):
    # A second session on the phone (gym.make_vec of one appium: device) ended the first's:
    # each env then failed on "invalid session id", or scored the other's taps.
    from mobileintent_gym.backends.appium import AppiumDevice
    from mobileintent_gym.backends.device_lock import DeviceBusyError

    url, handler = endpoint
    first = AppiumDevice(url)
    with pytest.raises(DeviceBusyError, match=r"driven by another env .* another udid or "
                                              r"another Appium server each"):
        AppiumDevice(url)
    other = AppiumDevice(url, udid="emulator-5556")  # another phone of the same server
    sessions = [p for m, p, _ in handler.requests if m == "POST" and p == "/session"]
    first.close()
    AppiumDevice(url).close()  # free again once the first is closed
    other.close()
    assert len(sessions) == 2  # the refused one asked the server for nothing


def test_finding_the_focused_field_fails_loudly_on_a_server_error(endpoint):
    # Only "no such element" means nothing has the focus; a crashed UiAutomator2 is an
    # error, not a TYPE that typed nothing.
    from mobileintent_gym.backends.adb_transport import DeviceCommandError
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    handler.broken_focus = True
    with pytest.raises(DeviceCommandError, match="find the focused field: UiAutomator2 crashed"):
        device.act("TYPE[hello]")


def test_the_first_action_after_open_reads_the_opened_app_s_screen(endpoint):
    # A page source read before open served as the next action's "before".
    from mobileintent_gym.backends.appium import AppiumDevice

    url, handler = endpoint
    device = AppiumDevice(url)
    device.act("PRESS[BACK]")  # reads the music app's page source
    device.open("chat")
    handler.requests.clear()
    event = device.act("SWIPE[UP]").event
    assert ("GET", "/source", {}) in handler.requests[:3]
    assert event.route_before == "chat/chats"


def test_a_device_spec_chooses_the_phone_and_the_lock_after_the_url(endpoint):
    # An appium: spec (the command line's --device, a vector env's device=) could not say
    # which phone of a server, so a second phone could only be driven from Python.
    from mobileintent_gym.backends.device_lock import DeviceBusyError
    from mobileintent_gym.backends.loader import load_device

    url, handler = endpoint
    first = load_device(f"appium:{url}?udid=emulator-5554")
    second = load_device(f"appium:{url}?udid=emulator-5556")
    with pytest.raises(DeviceBusyError):
        load_device(f"appium:{url}?udid=emulator-5554")
    unlocked = load_device(f"appium:{url}?udid=emulator-5554&exclusive=false")
    asked = [body["capabilities"]["alwaysMatch"].get("appium:udid")
             for method, path, body in handler.requests if (method, path) == ("POST", "/session")]
    assert asked == ["emulator-5554", "emulator-5556", "emulator-5554"]
    assert all(not path.startswith("/session?") for _, path, _ in handler.requests)
    for device in (first, second, unlocked):
        device.close()


def test_one_server_however_written_is_one_lock_and_a_remote_hub_takes_several(endpoint):
    # The lock was keyed by the URL as written: a trailing "/", "HTTP://" or localhost
    # took a second session on the phone; and a device farm's hub, which gives each
    # session a phone of its own, was refused for a second env.
    from mobileintent_gym.backends.appium import AppiumDevice, _server
    from mobileintent_gym.backends.device_lock import DeviceBusyError

    url, _handler = endpoint
    first = AppiumDevice(url)
    port = url.rsplit(":", 1)[1]
    for spelling in (f"{url}/", f"HTTP://127.0.0.1:{port}", f"http://localhost:{port}",
                     f"http://user:key@127.0.0.1:{port}"):
        with pytest.raises(DeviceBusyError):
            AppiumDevice(spelling)
    second = AppiumDevice(url, exclusive=False)  # as on a remote hub: no lock taken
    second.close()
    first.close()
    # Which servers are on this machine (locked unless exclusive=False) and which not.
    assert _server(f"http://LOCALHOST:{port}/") == (f"http://127.0.0.1:{port}", True)
    assert _server("http://[::1]:4723") == ("http://::1:4723", True)
    # 127.1 was another server than 127.0.0.1 (another lock), and not this machine's.
    assert _server(f"http://127.1:{port}") == (f"http://127.0.0.1:{port}", True)
    assert _server("http://127.0.0.2:4723") == ("http://127.0.0.2:4723", False)
    assert _server("https://u:k@Hub.Farm.example/wd/hub/") == (
        "https://hub.farm.example/wd/hub", False)


def test_a_server_elsewhere_takes_no_lock_unless_told(endpoint, monkeypatch):
    # No device farm runs here. The lock is recorded rather than taken (a stand-in), and
    # the hub is an address no Appium listens on, refused at once: 127.0.0.2, which the
    # lock does not count among this machine's names (localhost, 127.0.0.1, ::1).
    from mobileintent_gym.backends import appium
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError

    url, _handler = endpoint
    taken = []
    monkeypatch.setattr(appium.device_lock, "hold", lambda key, *_: taken.append(key))
    hub = "http://127.0.0.2:9/wd/hub"
    with pytest.raises(DeviceUnavailableError):
        appium.AppiumDevice(hub, timeout=5)
    assert taken == []  # a farm gives each session a phone of its own
    with pytest.raises(DeviceUnavailableError):
        appium.AppiumDevice(hub, exclusive=True, timeout=5)
    appium.AppiumDevice(url).close()
    assert taken == [f"appium {hub} ", f"appium {url} "]


def test_a_ctrl_c_while_the_session_starts_leaves_the_phone_free(endpoint, monkeypatch):
    from appium.webdriver.webdriver import WebDriver

    from mobileintent_gym.backends.appium import AppiumDevice

    url, _handler = endpoint
    with monkeypatch.context() as patched:
        patched.setattr(WebDriver, "start_session", lambda *a, **k: (_ for _ in ()).throw(
            KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt) as kept:  # kept: its traceback holds the device
            AppiumDevice(url)
    AppiumDevice(url).close()
    assert kept.value is not None


@pytest.mark.filterwarnings("ignore:Embedding username and password in URL")
def test_an_error_quoting_the_url_shows_no_key():
    # urllib3 quotes the URL whole ("Failed to parse: http://alice:SECRET@...").
    from mobileintent_gym.backends.adb_transport import DeviceUnavailableError
    from mobileintent_gym.backends.appium import AppiumDevice
    from mobileintent_gym.rl.runs import check_settings
    from mobileintent_gym.rl.sft import SftConfig

    with pytest.raises(DeviceUnavailableError) as caught:
        AppiumDevice("http://alice:SECRETKEY@127.0.0.1:99999/wd/hub", timeout=2)
    assert "SECRETKEY" not in str(caught.value) and caught.value.__cause__ is None
    with pytest.raises(MobileIntentError) as refused:
        check_settings(SftConfig(phone="appium:alice:SECRETKEY@farm.example/wd/hub"), "SFT",
                       (), ())
    assert "SECRETKEY" not in str(refused.value)
