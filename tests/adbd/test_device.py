import base64
import io
import itertools
import shlex
import struct
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from mobileintent_gym.adbd import android
from mobileintent_gym.adbd.android import android_text
from mobileintent_gym.adbd.conventions import activity_for, route_from_component, swipe_gesture
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.hierarchy import parse as parse_hierarchy
from mobileintent_gym.phone.query import find, find_all
from mobileintent_gym.phone.ui import center
from tests.helpers import press


@pytest.fixture
def device():
    phone = SimPhone()
    phone.reset(seed=0)
    device = VirtualDevice(phone)
    yield device
    device.close()


def out(device: VirtualDevice, line: str) -> str:
    result = device.run(line)
    assert result.code == 0, result.stderr
    return result.stdout.decode()


def icon_center(phone: SimPhone, text: str) -> tuple[int, int]:
    node = next(n for n in parse_hierarchy(phone.hierarchy()).walk()
                if (n.text == text or n.desc == text) and n.clickable)
    x1, y1, x2, y2 = node.bounds
    return (x1 + x2) // 2, (y1 + y2) // 2


def test_input_tap_opens_the_app_and_dumpsys_reports_it(device):
    x, y = icon_center(device.phone, "Music")
    out(device, f"input tap {x} {y}")
    assert device.phone.route() == "music/home"
    focus = out(device, "dumpsys window | grep mCurrentFocus")
    assert "com.mobileintent.music/.route.music.home}" in focus
    assert "com.mobileintent.music" in out(device, "dumpsys activity recents")
    # Android 12 and later write topResumedActivity= (grepped by foreground checks) and
    # ResumedActivity:; only mResumedActivity was there.
    resumed = out(device, "dumpsys activity activities | grep -E 'topResumedActivity|ResumedA'")
    assert resumed.count("com.mobileintent.music/.route.music.home t12}") == 3
    assert "topResumedActivity=ActivityRecord{" in resumed
    out(device, "input keyevent KEYCODE_HOME")  # music was listed visible behind the launcher
    assert "visible=true" not in out(device, "dumpsys activity recents")


def test_a_line_that_needs_no_phone_runs_while_an_app_holds_it(device):
    # After every line the server took the phone's lock to note the app in front, so an
    # `echo` waited for a plugin app's slow handler and was killed at the time limit.
    held, done, results = threading.Event(), threading.Event(), []

    def slow_handler():
        with device.lock:
            held.set()
            done.wait(60)

    holder = threading.Thread(target=slow_handler)
    holder.start()
    held.wait(60)
    line = threading.Thread(target=lambda: results.append(device.run("echo free")))
    line.start()
    line.join(30)  # a liveness bound, not a timing: unfixed, it waits for the handler
    answered = list(results)
    done.set()
    holder.join()
    line.join()
    assert [(r.code, r.stdout) for r in answered] == [(0, b"free\n")]


def test_an_app_the_server_opened_itself_is_in_recents_at_once(device):
    # Noted after each command on the phone only, an app opened by the server's own call
    # (as the state service's) was missing from the next dumpsys.
    with device.lock:
        device.phone.open("music")
    out(device, "echo hi")
    assert "com.mobileintent.music" in out(device, "dumpsys activity recents")


def test_an_app_that_fails_is_named_not_the_arguments(device, monkeypatch, caplog):
    # "Error: Invalid arguments for command: tap: ..." sent the user to check coordinates;
    # then the message ended with the server's file and line, sent to every client.
    device.phone.open("social")
    x, y = center(find(device.phone.hierarchy(), resource_id="like").bounds)

    def failing(nav, post_id):  # an app's bug, in the app's own handler
        raise RuntimeError("the handler failed")

    monkeypatch.setattr(device.phone.apps["social"], "on_like", failing)
    result = device.run(f"input tap {x} {y}")
    assert result.code == 1
    assert result.stderr.decode() == (
        f"Error: tap failed in the app: CLICK[{x},{y}] failed on social/home and was undone: "
        "RuntimeError('the handler failed')\n")
    assert f"{__file__}:" in caplog.text  # the server's log has where, for its owner
    assert device.run("input tap 1 x").stderr.startswith(b"Error: Invalid arguments")


@pytest.mark.parametrize("written", ["plain", "double-quoted", "escaped", "quoted pieces"])
def test_a_long_word_is_read_whole_within_the_time_limit(device, written):
    # A part per character, each copying the word so far: 400 KB took 2 s and a 1 MB word
    # was killed at the 10 s limit.
    word = "QUFB" * 125_000
    line = {"plain": word, "double-quoted": f'"{word}"',
            "escaped": "".join(f"\\{c}" for c in word),
            "quoted pieces": "'QU'FB" * 125_000}[written]
    result = device.run(f"echo {line}")
    assert (result.code, result.stdout) == (0, f"{word}\n".encode())


def test_keyevents_by_number_and_name(device):
    device.phone.open("chat")
    out(device, "input keyevent KEYCODE_HOME")
    assert device.phone.route() == "launcher"
    device.phone.open("chat")
    out(device, "input keyevent 3")
    assert device.phone.route() == "launcher"
    assert device.run("input keyevent KEYCODE_NOPE").code == 1


def test_typing_keyevents_reach_the_focused_field(device):
    # DEL (67) and the letter keys exited 0 and did nothing ("abc" stayed), and the name
    # KEYCODE_A was an unknown keycode: agents clear a field this way.
    device.phone.open("music", "music/search")
    press(device.phone, resource_id="search_src_text")  # focused: the keyboard shows
    out(device, "input text abc")
    field = next(find_all(device.phone.hierarchy(), resource_id="search_src_text")).text
    assert field == "abc"
    out(device, "input keyevent 67 KEYCODE_DEL")
    out(device, "input keyevent KEYCODE_X 8 KEYCODE_SPACE")
    field = next(find_all(device.phone.hierarchy(), resource_id="search_src_text")).text
    assert field == "ax1 "
    device.phone.act("PRESS[BACK]")  # the keyboard down: DEL has no field to reach
    out(device, "input keyevent KEYCODE_VOLUME_UP 67")


@pytest.mark.parametrize("name", ["KEYCODE_MOVE_END", "MOVE_END", "keycode_forward_del",
                                  "KEYCODE_MEDIA_PLAY_PAUSE", "KEYCODE_PROFILE_SWITCH",
                                  "KEYCODE_ZOOM_IN", "KEYCODE_3D_MODE", "KEYCODE_11",
                                  "KEYCODE_RECENT_APPS", "KEYCODE_MACRO_4"])
def test_every_android_key_name_is_a_key(device, name):
    from mobileintent_gym.adbd.keycodes import KEYCODES

    assert sorted(KEYCODES.values()) == list(range(317))  # one name per code, 0 to 316
    # Only 47 names were known: KEYCODE_MOVE_END (the usual start of clearing a field)
    # was "unknown keycode" while its number, 123, was taken.
    device.phone.open("chat")
    events = len(device.phone.events)
    assert device.run(f"input keyevent {name}").code == 0
    assert len(device.phone.events) == events  # keys the phone has no use for: nothing


@pytest.mark.parametrize(("line", "says"), [
    ("input keyevent", b"keyevent: no keycode"),  # it ended in status 0, doing nothing
    ("input keyevent --longpress", b"keyevent: no keycode"),
    ("input -d abc tap 5 5", b"Invalid arguments for display ID."),  # it was skipped
    ("input -d", b"Invalid arguments for display ID."),
    ("input -d " + "1" * 5000 + " keyevent 3", b"Invalid arguments for display ID."),
])
def test_input_without_a_keycode_or_with_a_bad_display_is_an_error(device, line, says):
    device.phone.open("chat")
    events = len(device.phone.events)
    result = device.run(line)
    assert result.code == 1 and result.stderr.startswith(b"Error: ") and says in result.stderr
    assert len(device.phone.events) == events and device.phone.route() == "chat/chats"
    for display in ("0", "-1", "DEFAULT_DISPLAY", "invalid_display", "+0002"):
        device.phone.open("chat")  # a display's number or name is read: the phone's one
        out(device, f"input -d {display} keyevent 3")
        assert device.phone.route() == "launcher", display


def test_am_start_and_monkey_open_apps(device):
    out(device, "monkey -p com.mobileintent.chat -c android.intent.category.LAUNCHER 1")
    assert device.phone.route() == "chat/chats"
    out(device, "am start -n " + activity_for("com.mobileintent.music", "music/home"))
    assert device.phone.route() == "music/home"
    nope = device.run("am start -n com.nope/.Main")  # status 0, as Android's am start
    assert (nope.code, nope.stdout, nope.stderr) == (
        0, b"Starting: Intent { cmp=com.nope/.Main }\n",
        b"Error type 3\nError: Activity class {com.nope/com.nope.Main} does not exist.\n")
    # Options read left to right, as broadcast reads them: an extra's value "-n" is no
    # option (the component was taken from it), a number extra that is no number fails.
    home = activity_for("com.mobileintent.chat", "chat/chats")
    out(device, f"am start -W --es label -n -a android.intent.action.MAIN -n {home}")
    assert device.phone.route() == "chat/chats"
    bad = device.run(f"am start --ei n x -n {activity_for('com.mobileintent.music', 'music/home')}")
    assert bad.code == 255 and bad.stderr == (b"\nException occurred while executing 'start':\n"
                                              b'java.lang.NumberFormatException: For input '
                                              b'string: "x"\n')
    assert device.phone.route() == "chat/chats"
    out(device, "am start -n " + activity_for("com.mobileintent.music", "music/home"))
    # A route that does not exist, or needs parameters: an error, the screen unchanged.
    for route in ("chat.nonexistent", "chat.conversation"):
        result = device.run(f"am start -n com.mobileintent.chat/.route.{route}")
        assert result.code == 0 and result.stderr.startswith(
            f"Error type 3\nError: Activity class {{com.mobileintent.chat/com.mobileintent."
            f"chat.route.{route}}} does not exist.\n(".encode())
        assert device.phone.route() == "music/home"


def test_am_start_takes_the_component_or_package_after_the_options_and_the_home_intent(
        device):
    # Only -n was read: `am start PKG/.Activity`, `am start PKG` and the home intent, which
    # scripts use to reach the launcher, failed with "unable to resolve Intent".
    out(device, "am start " + activity_for("com.mobileintent.music", "music/home"))
    assert device.phone.route() == "music/home"
    out(device, "am start -a android.intent.action.MAIN -c android.intent.category.HOME")
    assert device.phone.route() == "launcher"
    assert out(device, "am start com.mobileintent.music") == (
        "Starting: Intent { act=android.intent.action.MAIN "
        "cat=[android.intent.category.LAUNCHER] pkg=com.mobileintent.music }\n")
    assert device.phone.route() == "music/home"  # back where it was, as from its icon
    out(device, "am start -n " + activity_for("com.mobileintent.music", "music/library"))
    out(device, "input keyevent KEYCODE_HOME")
    out(device, "am start com.mobileintent.music")
    assert device.phone.route() == "music/library"
    out(device, "input keyevent KEYCODE_HOME")
    out(device, "am start -S --user 0 com.mobileintent.music --display 0")  # -S: afresh
    assert device.phone.route() == "music/home"
    # The options end at what to start, as Android reads them: these were read on.
    out(device, "am start com.mobileintent.chat -e")
    assert device.phone.route() == "chat/chats"
    out(device, "am start com.mobileintent.music -n "
        + activity_for("com.mobileintent.chat", "chat/chats"))
    assert device.phone.route() == "music/home"
    assert device.run("am start -- -n com.mobileintent.chat").stderr == (  # -- ends them
        b"Error: Activity not started, unable to resolve Intent { act=android.intent.action."
        b"MAIN cat=[android.intent.category.LAUNCHER] flg=0x10000000 pkg=-n }\n")
    # The first word that is no option is what starts (a value of --display is none).
    out(device, "am start --display 0 " + activity_for("com.mobileintent.chat", "chat/chats")
        + " x")
    assert device.phone.route() == "chat/chats"
    # An address is shown as Android shows it: a web one without its path, a phone number
    # masked, another without its fragment. The unresolved intent carries am's flag.
    view = "act=android.intent.action.VIEW dat=https://example.com/..."
    launcher = "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER]"
    for line, named, flagged in (
            ("am start -a android.intent.action.VIEW -d https://example.com", view,
             f"{view} flg=0x10000000"),
            ("am start https://user@example.com/a?b#c", view, f"{view} flg=0x10000000"),
            ("am start tel:+1-555-0100", "act=android.intent.action.VIEW dat=tel:xx-xxx-xxxx",
             "act=android.intent.action.VIEW dat=tel:xx-xxx-xxxx flg=0x10000000"),
            ("am start content://media/x?y=1#f", "act=android.intent.action.VIEW "
             "dat=content://media/x?y=1", "act=android.intent.action.VIEW "
             "dat=content://media/x?y=1 flg=0x10000000"),
            ("am start com.nope", f"{launcher} pkg=com.nope",
             f"{launcher} flg=0x10000000 pkg=com.nope"),
            ("am start -a x.Y com.nope", "act=x.Y pkg=com.nope",
             "act=x.Y flg=0x10000000 pkg=com.nope")):
        result = device.run(line)
        assert (result.code, result.stdout, result.stderr) == (
            0, f"Starting: Intent {{ {named} }}\n".encode(),
            f"Error: Activity not started, unable to resolve Intent {{ {flagged} }}\n".encode())
    assert device.phone.route() == "chat/chats"


def test_an_activity_the_app_lacks_is_an_error_and_the_reported_ones_start(device):
    # com.mobileintent.music/.Nope (or another app's route) opened the app's home screen
    # with status 0, and the launcher's activity the device reports could not be started.
    out(device, "am start -n " + activity_for("com.mobileintent.chat", "chat/chats"))
    for activity in (".Nope", ".MainActivity", ".route.chat.chats"):
        refused = device.run(f"am start -n com.mobileintent.music/{activity}")
        assert refused.code == 0 and refused.stderr == (
            f"Error type 3\nError: Activity class {{com.mobileintent.music/com.mobileintent."
            f"music{activity}}} does not exist.\n(the "
            "app's activities are its routes, as com.mobileintent.music/.route.music.home; "
            "am start com.mobileintent.music opens it as from its icon)\n").encode()
        assert device.phone.route() == "chat/chats"
    for component in ("com.mobileintent.music/", "com.mobileintent.music"):  # no class
        refused = device.run(f"am start -n {component}")
        assert (refused.code, refused.stderr) == (255, (
            "\nException occurred while executing 'start':\njava.lang.IllegalArgumentException: "
            f"Bad component name: {component}\n").encode())
    for component in ("com.mobileintent.music/.route.", "com.mobileintent.music/"):
        refused = device.run(f"am start {component}")
        assert refused.code == 0 and b"does not exist" in refused.stderr
    assert device.phone.route() == "chat/chats"
    out(device, "am start -n com.mobileintent.music/com.mobileintent.music.route.music.library")
    assert device.phone.route() == "music/library"  # the class named in full
    out(device, "input keyevent KEYCODE_HOME")
    shown = device.component()
    for component in (shown, shown.replace("/.", "/com.android.launcher3.")):
        out(device, "am start -n " + activity_for("com.mobileintent.chat", "chat/chats"))
        said = out(device, f"am start -n {component}")  # written in the short form
        assert said == f"Starting: Intent {{ cmp={shown} }}\n"
        assert device.phone.route() == "launcher" and device.component() == shown


def waited(device: VirtualDevice, line: str) -> tuple[list[str], dict[str, str]]:
    """``am start -W``'s lines before its report, and the report's fields."""
    lines = out(device, line).splitlines()
    at = lines.index("Status: ok")
    assert lines[-1] == "Complete", lines
    report = dict(line.split(": ", 1) for line in lines[at:-1])
    assert list(report) == ["Status", "LaunchState", "Activity", "TotalTime", "WaitTime"]
    return lines[:at], report


def test_am_start_w_reports_the_launch_as_android_does(device, monkeypatch):
    # `am start -W` printed no Status/LaunchState/TotalTime lines: a harness that checks
    # "Status: ok" (or reads TotalTime) after starting an app failed on every start.
    ticks = itertools.count(0.0, 0.25)  # each reading of the clock a quarter second on
    monkeypatch.setattr(android, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
    music = activity_for("com.mobileintent.music", "music/home")
    before, report = waited(device, f"am start -W -n {music}")
    assert before == [f"Starting: Intent {{ cmp={music} }}"]
    timed = {"TotalTime": "250", "WaitTime": "250"}  # the start's milliseconds
    assert report == {"Status": "ok", "LaunchState": "COLD", "Activity": music, **timed}
    library = activity_for("com.mobileintent.music", "music/library")
    assert waited(device, f"am start -W -n {library}")[1]["LaunchState"] == "WARM"
    out(device, "input keyevent KEYCODE_HOME")
    before, report = waited(device, "am start -W com.mobileintent.music")  # its task, in front
    assert before[1:] == ["Warning: Activity not started, its current task has been brought "
                          "to the front"]
    assert report == {"Status": "ok", "LaunchState": "HOT", "Activity": library, **timed}
    before, report = waited(device, "am start -W -S com.mobileintent.music")  # stopped first
    assert before == ["Stopping: com.mobileintent.music", "Starting: Intent { act=android."
                      "intent.action.MAIN cat=[android.intent.category.LAUNCHER] "
                      "pkg=com.mobileintent.music }"]
    assert report == {"Status": "ok", "LaunchState": "COLD", "Activity": music, **timed}
    out(device, "input keyevent KEYCODE_BACK")  # left with BACK: no screens open
    assert waited(device, "am start -W com.mobileintent.music")[1]["LaunchState"] == "COLD"
    home = "am start -W -a android.intent.action.MAIN -c android.intent.category.HOME"
    before, report = waited(device, home)
    assert report == {"Status": "ok", "LaunchState": "HOT", "Activity": device.component(),
                      **timed}
    assert device.phone.route() == "launcher" and before[1].startswith("Warning: ")
    before, report = waited(device, home)  # already in front: the intent is delivered to it
    assert before[1] == ("Warning: Activity not started, intent has been delivered to "
                         "currently running top-most instance.")
    assert report["LaunchState"] == "UNKNOWN (0)"
    # Nothing started: no report, the error on standard output, as -W prints it.
    assert device.run("am start -W -n com.nope/.Main").stdout == (
        b"Starting: Intent { cmp=com.nope/.Main }\nError type 3\nError: Activity class "
        b"{com.nope/com.nope.Main} does not exist.\n")


def test_am_start_prints_what_it_starts_before_its_errors(device):
    # Errors came alone, with status 1, where Android's am prints "Starting: ..." first and
    # ends with status 0 (scripts read "Error" in its output).
    merged = device.run("am start -n com.nope/.Main 2>&1")
    assert (merged.code, merged.stdout) == (
        0, b"Starting: Intent { cmp=com.nope/.Main }\nError type 3\nError: Activity class "
        b"{com.nope/com.nope.Main} does not exist.\n")
    # -f sets the flags (a later -f replaces them), each flag option adds its own, am adds
    # FLAG_ACTIVITY_NEW_TASK when it starts.
    flagged = device.run("am start --activity-clear-top -f 0x4 --activity-single-top "
                         "com.nope")
    assert b" flg=0x20000004 pkg=com.nope }" in flagged.stdout
    assert b" flg=0x30000004 pkg=com.nope }" in flagged.stderr
    # Every -c counts, each once.
    out(device, "am start -a android.intent.action.MAIN -c android.intent.category.HOME "
        "-c android.intent.category.DEFAULT -c android.intent.category.HOME")
    assert device.phone.route() == "launcher"
    said = out(device, "am start -W -c a -c b -c a -n com.nope/.Main")
    assert said.startswith("Starting: Intent { cat=[a,b] cmp=com.nope/.Main }\n")
    # --user all: refused before anything starts, as Android refuses it (its message says
    # "service").
    refused = device.run("am start --user all com.mobileintent.music")
    assert (refused.code, refused.stdout, refused.stderr) == (
        1, b"", b"Error: Can't start service with user 'all'\n")
    assert device.phone.route() == "launcher"
    # -S with a package that no activity matches: nothing is started, status 1.
    unmatched = device.run("am start -S com.nope")
    assert (unmatched.code, unmatched.stdout, unmatched.stderr) == (
        1, b"", b"Error: Intent does not match any activities: Intent { act=android.intent."
        b"action.MAIN cat=[android.intent.category.LAUNCHER] pkg=com.nope }\n")
    # A component after the options replaces -n's, as Android fills the intent in.
    music = activity_for("com.mobileintent.music", "music/home")
    out(device, f"am start -n {activity_for('com.mobileintent.chat', 'chat/chats')} {music}")
    assert device.phone.route() == "music/home"


def test_am_start_s_stops_the_package_it_names_whatever_the_category(device):
    # -S with the home category stopped nothing even when a component was named.
    music = activity_for("com.mobileintent.music", "music/home")
    out(device, f"am start -n {activity_for('com.mobileintent.music', 'music/library')}")
    said = out(device, f"am start -W -S -c android.intent.category.HOME -n {music}")
    assert said.startswith("Stopping: com.mobileintent.music\n")
    assert "LaunchState: COLD\n" in said and device.phone.route() == "music/home"
    home = out(device, "am start -S -a android.intent.action.MAIN -c "
               "android.intent.category.HOME")  # the launcher's activity is the one matched
    assert home.startswith("Stopping: com.android.launcher3\n")
    assert device.phone.route() == "launcher"
    typed = out(device, "am start -t text/plain https://example.com/a")  # -t: no data taken
    assert typed.startswith("Starting: Intent { act=android.intent.action.VIEW typ=text/plain }")


def test_merged_output_keeps_the_output_before_the_errors(device):
    # 316a11e merged a command's errors before its output with 2>&1 (cat, grep, ls ...),
    # where toybox wrote the files' contents as it read them.
    device.fs.write("/sdcard/a.txt", b"hi\n")
    merged = device.run("cat /sdcard/a.txt /sdcard/nope 2>&1")
    assert merged.stdout.startswith(b"hi\n") and b"nope" in merged.stdout


def test_am_refuses_the_options_android_refuses(device):
    # Any option am did not know was taken as a flag: `am start --nope PKG` started the
    # app, where a phone refuses it; values read as numbers, booleans or users went
    # unchecked.
    route = device.phone.route()
    for line, exception in (
            ("am start --nope com.mobileintent.chat", "IllegalArgumentException: Unknown "
             "option: --nope"),
            ("am start -x com.mobileintent.chat", "IllegalArgumentException: Unknown option: -x"),
            ("am broadcast -a x --wait", "IllegalArgumentException: Unknown option: --wait"),
            ("am start --display one com.mobileintent.chat",
             'NumberFormatException: For input string: "one"'),
            ("am start -R 0x2 com.mobileintent.chat",  # parseInt, not decode
             'NumberFormatException: For input string: "0x2"'),
            ("am start --ez on YES com.mobileintent.chat",
             "IllegalArgumentException: Invalid boolean value: yes"),
            ("am start --eia a 1,x com.mobileintent.chat",
             'NumberFormatException: For input string: "x"'),
            ("am start --ecn a nope com.mobileintent.chat",
             "IllegalArgumentException: Bad component name: nope"),
            ("am broadcast -a x -n nope", "IllegalArgumentException: Bad component name: nope"),
            ("am start --user me com.mobileintent.chat",
             "IllegalArgumentException: Bad user number: me"),
            ("am start --user " + "u" * 50 + " com.mobileintent.chat",  # was cut at 40
             "IllegalArgumentException: Bad user number: " + "u" * 50),
            # Options that name no intent, flags that are no number.
            ("am start", "IllegalArgumentException: No intent supplied"),
            ("am start -W --es id x", "IllegalArgumentException: No intent supplied"),
            ("am broadcast --ez a true", "IllegalArgumentException: No intent supplied"),
            ("am start -f nope com.mobileintent.chat",
             'NumberFormatException: For input string: "nope"')):
        refused = device.run(line)
        assert (refused.code, refused.stdout) == (255, b""), line
        assert refused.stderr.endswith(f"java.lang.{exception}\n".encode()), line
    assert device.phone.route() == route
    # Android's own flags and values are read (and change nothing here).
    music = "com.mobileintent.music/.route.music.home"
    said = out(device, "am start --activity-clear-task --splashscreen-show-icon --ez a 0x1 "
               f"--ez b T --esn c --windowingMode 1 --user current --eda d 1.5,2 {music}")
    assert said == ("Starting: Intent { act=android.intent.action.MAIN cat=[android.intent."
                    f"category.LAUNCHER] flg=0x8000 cmp={music} (has extras) }}\n")
    assert device.phone.route() == "music/home"


def test_a_route_that_shows_a_record_takes_it_as_a_string_extra(device):
    # A conversation could not be opened by am start at all ("takes parameters ['id']").
    chat = device.phone.state.apps["chat"].chats[0]
    conversation = activity_for("com.mobileintent.chat", "chat/conversation")
    said = out(device, f"am start -n {conversation} --es id {chat.id} --ez other true")
    assert said == f"Starting: Intent {{ cmp={conversation} (has extras) }}\n"
    shown = device.phone.hierarchy()
    assert device.phone.route() == "chat/conversation" and chat.messages[0].text in shown
    out(device, "input keyevent KEYCODE_HOME")
    for extras, says in (("", "takes parameters ['id'], got {}; pass them as --es NAME VALUE"),
                         ("--ei id 3", "takes parameters ['id'], got {}; pass them as --es"),
                         ("--es id nope", "no chat 'nope'")):
        refused = device.run(f"am start -n {conversation} {extras}")
        assert refused.code == 0 and says in refused.stderr.decode(), extras
        assert device.phone.route() == "launcher"


def test_a_one_letter_option_takes_its_value_joined_to_it_as_android_reads_it(device):
    # `am start -nPACKAGE/ACTIVITY` was read as an unknown flag: "unable to resolve Intent
    # { cmp=(none) }" where a phone starts the activity.
    out(device, "am start -n" + activity_for("com.mobileintent.music", "music/home"))
    assert device.phone.route() == "music/home"
    out(device, "am start -W -a android.intent.action.MAIN -candroid.intent.category.HOME")
    assert device.phone.route() == "launcher"
    focus_chat_input(device)
    out(device, "am broadcast -aADB_INPUT_TEXT -emsg joined")  # -e KEY VALUE: the key joined
    assert device.phone.events[-1].typed == "joined"
    route, events = device.phone.route(), len(device.phone.events)
    for line, flag in (("am start -Sx com.mobileintent.music", "-Sx"),
                       ("am broadcast -a x -Wy", "-Wy")):
        refused = device.run(line)
        assert refused.code == 255 and refused.stderr.endswith(
            f'IllegalArgumentException: No argument expected after "{flag}"\n'.encode()), line
    assert (device.phone.route(), len(device.phone.events)) == (route, events)


@pytest.mark.parametrize(("line", "says"), [
    ("monkey -p com.mobileintent.chat -1", b"** Error: Unknown option: -1"),  # it launched
    ("monkey -p com.mobileintent.chat", b"** Error: Count not specified"),
    ("monkey -p com.mobileintent.chat x", b'** Error: Count is not a number: "x"'),
    ("monkey -p com.mobileintent.chat 9999999999",
     b'** Error: Count is not a number: "9999999999"'),
    ("monkey -p com.mobileintent.chat -q 1", b"** Error: Unknown option: -q"),
    ("monkey -p", b"** Error: Argument expected after -p"),
    ("monkey -p com.mobileintent.chat " + "1" * 5000,
     b'** Error: Count is not a number: "' + b"1" * 40 + b'"'),
])
def test_monkey_reads_its_options_and_count_as_android_does(device, line, says):
    result = device.run(line)
    assert (result.code, result.stderr) == (255, says + b"\n")
    assert device.phone.route() == "launcher"
    assert "Events injected: 0" in out(device, "monkey -p com.mobileintent.chat 0")
    assert device.phone.route() == "launcher"  # no event: nothing launched
    out(device, "monkey -v -v --throttle 100 -s 7 --pct-touch 50 --ignore-crashes --bugreport "
                "--profile-wait 5 -p com.mobileintent.chat -- 500")
    assert device.phone.route() == "chat/chats"


def test_am_force_stop_closes_the_apps_screens_and_keeps_its_data(device):
    # It was refused as an unsupported sub-command: harnesses reset apps with it.
    phone = device.phone
    phone.open("chat")
    press(phone, resource_id="chat")
    assert phone.route() == "chat/conversation"
    out(device, "input keyevent KEYCODE_HOME; monkey -p com.mobileintent.chat 1")
    assert phone.route() == "chat/conversation"  # a started app comes back where it was
    data = phone.state.apps["chat"]
    assert out(device, "am force-stop com.mobileintent.chat") == ""
    assert phone.route() == "launcher" and phone.state.apps["chat"] is data
    shown = np.asarray(Image.open(io.BytesIO(device.run("screencap -p").stdout)).convert("RGB"))
    assert np.array_equal(shown, phone.screenshot())
    out(device, "monkey -p com.mobileintent.chat 1")
    assert phone.route() == "chat/chats"  # started afresh, at its root
    # Another app stopped in the background leaves the one in front; an app that is not
    # installed is no error, as on a phone.
    out(device, "am force-stop --user 0 com.mobileintent.music; am force-stop com.nope")
    assert phone.route() == "chat/chats"
    # Arguments read as Android reads them: what follows the package is ignored.
    for line in ("am force-stop --user all --user +0 com.mobileintent.music extra",
                 "am force-stop -- com.mobileintent.music"):
        phone.open("music")
        out(device, line)
        assert phone.route() == "launcher", line
    # Errors as Android's ShellCommand gives them: all status 255 (-1), those its
    # arguments throw as an exception.
    thrown = "\nException occurred while executing 'force-stop':\n" \
             "java.lang.IllegalArgumentException: "
    for line, says in (("am force-stop", thrown + 'Argument expected after "force-stop"\n'),
                       ("am force-stop --user", thrown + 'Argument expected after "--user"\n'),
                       ("am force-stop --user bogus com.mobileintent.chat",
                        thrown + "Bad user number: bogus\n"),
                       ("am force-stop -xy com.mobileintent.chat", "Error: Unknown option: -x\n")):
        refused = device.run(line)
        assert (refused.stdout, refused.stderr, refused.code) == (b"", says.encode(), 255), line


def test_screencap_png_to_stdout_and_file_equals_frame(device):
    frame = device.phone.screenshot()
    png = device.run("screencap -p").stdout
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), frame)
    out(device, "screencap -p /sdcard/x.png")
    assert device.fs.read("/sdcard/x.png") == png


def test_a_screencap_option_it_lacks_is_named_not_written_to(device):
    # "/system/bin/sh: /-x: Permission denied": -x was taken for the file to write.
    result = device.run("screencap -x")
    assert (result.code, result.stdout) == (1, b"")
    assert result.stderr.decode().startswith("screencap: invalid option '-x'\nusage: screencap")
    for line in ("screencap -h", "screencap -h -x", "screencap /sdcard/a /sdcard/b"):
        asked = device.run(line)  # Android's screencap: usage(); return 1
        assert (asked.code, asked.stderr) == (
            1, b"usage: screencap [-hp] [-d display-id] [FILENAME]\n"), line
    assert not device.fs.exists("/sdcard/a")


def test_screencap_reads_its_options_after_the_file_too(device):
    # Android's getopt reads options wherever they stand: `screencap FILE -x` wrote the
    # file and said nothing, `screencap FILE -p` wrote raw pixels to a file without .png.
    for line, says in (("screencap /sdcard/a.png -x", "invalid option '-x'"),
                       ("screencap -px", "invalid option '-x'"),
                       ("screencap -d", "option requires an argument '-d'")):
        refused = device.run(line)
        assert (refused.code, refused.stdout) == (1, b""), line
        assert refused.stderr.decode().startswith(f"screencap: {says}\nusage: screencap"), line
    assert not device.fs.exists("/sdcard/a.png")
    png = device.run("screencap -p").stdout
    for line, path in (("screencap /sdcard/b -p", "/sdcard/b"),
                       ("screencap -d0 -p /sdcard/c", "/sdcard/c"),
                       ("screencap /sdcard/d -d 0 -p", "/sdcard/d"),
                       ("screencap -d 0 /sdcard/e.png", "/sdcard/e.png")):
        out(device, line)
        assert device.fs.read(path) == png, line
    out(device, "screencap -d 0 /sdcard/raw")
    raw = device.fs.read("/sdcard/raw")
    assert raw[:8] == struct.pack("<2I", device.phone.width, device.phone.height)


def test_screencap_follows_the_screen_after_each_action(device):
    first = device.run("screencap -p").stdout
    assert device.run("screencap -p").stdout is first  # unchanged screen: encoded once
    icon = find(device.phone.hierarchy(), text="Music", resource_id="icon").bounds
    out(device, f"input tap {(icon[0] + icon[2]) // 2} {(icon[1] + icon[3]) // 2}")
    assert device.phone.route() == "music/home"
    png = device.run("screencap -p").stdout
    assert png != first
    shown = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert np.array_equal(shown, device.phone.screenshot())


def test_uiautomator_dump_then_cat(device):
    assert out(device, "uiautomator dump") == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    xml = out(device, "uiautomator dump /sdcard/w.xml >/dev/null && cat /sdcard/w.xml")
    assert xml == device.phone.hierarchy()
    assert parse_hierarchy(xml).cls


def test_framework_queries(device):
    assert out(device, "wm size") == "Physical size: 1080x2400\n"
    assert out(device, "getprop ro.build.version.sdk") == "34\n"
    assert "mCurrentRotation=ROTATION_0" in out(device, "dumpsys window | grep mCurrentRotation")
    assert "physicalFrame=[0, 0, 1080, 2400]" in out(device, "dumpsys input | grep physicalFrame")
    assert "orientation=0" in out(device, "dumpsys display")
    assert "package:com.mobileintent.music" in out(device, "pm list packages")
    # A filter and -3 / -s were read as nothing: "is it installed" checks always passed.
    assert out(device, "pm list packages com.mobileintent.music") == (
        "package:com.mobileintent.music\n")
    assert out(device, "pm list packages com.nope") == ""
    assert out(device, "pm list packages -s") == (
        "package:com.android.inputmethod.latin\npackage:com.android.launcher3\n")
    assert "launcher" not in out(device, "pm list packages -3") and out(
        device, "pm list packages -3 music") == "package:com.mobileintent.music\n"
    assert (device.run("pm list packages -x").code, device.run("pm list packages -x").stderr
            ) == (255, b"Error: Unknown option: -x\n")
    # Options scripts use were refused once the filter was read (and --user's 0 with it).
    assert out(device, "pm list packages --user 0 -3 -f music") == (
        "package:/data/app/~~sim/com.mobileintent.music-1/base.apk=com.mobileintent.music\n")
    line = out(device, "pm list packages -U -i --show-versioncode launcher3")
    assert line.startswith("package:com.android.launcher3 versionCode:1  installer=null uid:")
    uid = line.split("uid:")[1].strip()
    assert out(device, f"pm list packages --uid {uid}") == (
        f"package:com.android.launcher3 uid:{uid}\n")  # --uid shows the uid, as -U
    # Options end at the first other word (the filter) or at "--", as Android reads them.
    assert out(device, "pm list packages music -s -x") == "package:com.mobileintent.music\n"
    assert out(device, "pm list packages -- -s") == ""
    assert device.run("pm list packages --user").stderr == (
        b'Error: java.lang.IllegalArgumentException: Argument expected after "--user"\n')
    assert device.run("pm list packages --uid abc").stderr == (
        b'Error: java.lang.NumberFormatException: For input string: "abc"\n')
    # Values as Java reads them: +N and 0N are N, -1 any uid or user; a user name is one.
    assert out(device, f"pm list packages --uid +0{uid}") == out(
        device, f"pm list packages --uid {uid}")
    assert out(device, "pm list packages --uid -1 --user -1 launcher") == (
        f"package:com.android.launcher3 uid:{uid}\n")
    refused = device.run("pm list packages --user abc")
    assert (refused.code, refused.stderr) == (
        255, b"Error: java.lang.IllegalArgumentException: Bad user number: abc\n")
    # Boot-wait loops read these; android_id was null.
    assert [out(device, f"getprop {p}") for p in ("init.svc.bootanim", "sys.boot_completed",
                                                  "dev.bootcomplete")] == [
        "stopped\n", "1\n", "1\n"]
    assert out(device, "getprop ro.build.fingerprint").startswith("mobileintent/mobileintent_sim/")
    assert len(out(device, "settings get secure android_id").strip()) == 16


def test_dumpsys_battery_is_full_on_ac_power(device):
    battery = out(device, "dumpsys battery")
    assert battery.startswith("Current Battery Service state:\n")
    assert {"  AC powered: true", "  level: 100", "  scale: 100", "  status: 5"} <= set(
        battery.splitlines())


def test_settings_are_kept_as_a_harness_sets_them(device):
    # Harnesses turn animations off and read the value back before they start.
    assert out(device, "settings get global window_animation_scale") == "1.0\n"
    assert out(device, "settings put global window_animation_scale 0") == ""
    assert out(device, "settings --user 0 get GLOBAL window_animation_scale") == "0\n"
    assert out(device, "settings get secure no_such_key") == "null\n"
    assert out(device, "settings put system screen_off_timeout 2147483647 tag default") == ""
    assert "screen_off_timeout=2147483647\n" in out(device, "settings list system")
    assert out(device, "settings delete system screen_off_timeout") == "Deleted 1 rows\n"
    assert out(device, "settings delete system screen_off_timeout") == "Deleted 0 rows\n"
    assert out(device, "settings get system screen_off_timeout") == "null\n"
    listed = out(device, "settings list global").splitlines()
    assert listed == sorted(listed) and "window_animation_scale=0" in listed


@pytest.mark.parametrize(("line", "said"), [
    ("settings", "Invalid command: \n"),
    ("settings set global a 1", "Invalid command: set\n"),
    ("settings get local a", "Invalid namespace: local\n"),
    ("settings get global", "Invalid arguments to get: global\n"),
    ("settings put global a", "Invalid arguments to put: global a\n"),
])
def test_bad_settings_arguments_print_the_usage_and_exit_255(device, line, said):
    result = device.run(line)
    assert (result.code, result.stdout) == (255, b"")
    assert result.stderr.decode().startswith(said) and b"usage: settings" in result.stderr


def test_input_text_types_literally_and_decodes_percent_s(device):
    assert android_text("a%sb%%sc%") == "a b% c%"
    device.phone.open("chat")
    assert device.run("input text 'a%sb'").code == 0
    assert device.phone.events[-1].action == "TYPE[a b]"


def test_the_device_refuses_what_a_phone_would_not_do_as_asked(device):
    # Each passed here and failed (or did otherwise) on a phone: an agent tested on the
    # virtual device must not learn it.
    device.phone.open("chat")
    assert device.run("input text hello world").code == 0  # Android 11+: the first argument
    assert device.phone.events[-1].action == "TYPE[hello]"
    accented = device.run("input text caf\u00e9")
    assert accented.code == 1 and b"Error: input text types ASCII only" in accented.stderr
    assert device.phone.events[-1].action == "TYPE[hello]"  # nothing typed
    resized = device.run("wm size 720x1280")
    assert resized.code != 0 and b"cannot be resized" in resized.stderr
    assert out(device, "wm size") == "Physical size: 1080x2400\n"


def test_the_emulated_storage_is_the_sdcard_as_on_a_phone(device):
    # They were two folders: a dump written to /sdcard was missing under the other name.
    out(device, "uiautomator dump")
    assert out(device, "cat /storage/emulated/0/window_dump.xml") == device.phone.hierarchy()
    out(device, "echo hi > /storage/emulated/0/note.txt")
    assert out(device, "cat /sdcard/note.txt") == "hi\n"
    assert "note.txt" in out(device, "ls /sdcard")


def test_canonical_swipe_is_the_swipe_action_and_still_touch_is_long_press(device):
    device.phone.open("music")
    x1, y1, x2, y2 = swipe_gesture("UP", 1080, 2400)
    out(device, f"input swipe {x1} {y1} {x2} {y2} 300")
    assert device.phone.events[-1].action == "SWIPE[UP]"
    out(device, "input swipe 500 1000 500 1000 1000")
    assert device.phone.events[-1].action == "LONG_CLICK[500,1000]"
    out(device, "input swipe 500 1000 500 1002 50")
    assert device.phone.events[-1].action == "CLICK[500,1000]"


@pytest.mark.parametrize("line", ["input tap 5000 10", "input tap -5 10", "input tap 1080 2400",
                                  "input swipe 540 2400 540 1000", "input swipe -1 5 500 5"])
def test_a_touch_off_the_screen_reaches_no_window_as_on_a_phone(device, line):
    # It was "Error: Invalid arguments ... outside the 1080x2400 screen" (exit 1): a
    # script under `set -e` stopped where a phone takes the event and nothing happens.
    device.phone.open("music")
    result = device.run(line)
    assert (result.code, result.stderr) == (0, b"")
    assert device.phone.events == []


def test_a_swipe_that_leaves_the_screen_is_a_drag_all_the_same(device):
    device.phone.open("music")
    assert device.run("input swipe 540 2000 540 9000").code == 0
    assert device.run("input swipe 540 200 -70 200 100").code == 0
    # A slow drag 2,000 px off the edge is no long press, nor a tap.
    assert device.run("input swipe 5 1000 -2000 1000 1000").code == 0
    assert [e.action.split("[")[0] for e in device.phone.events] == ["SWIPE"] * 3


def test_route_activity_names_round_trip():
    for route in ("launcher", "music/library/recent", "chat/thread.v2/x y"):
        package, activity = activity_for("com.p", route).split("/", 1)
        assert route_from_component(package, activity) == route
    assert route_from_component("com.google.android.apps.nexuslauncher", ".Launcher") == "launcher"
    assert route_from_component("com.x", ".Main") == "com.x/.Main"


def test_banner_advertises_identity_and_only_implemented_features(device):
    assert device.banner() == (b"device::ro.product.name=mobileintent_sim;"
                               b"ro.product.model=SimPhone;ro.product.device=simphone;"
                               b"features=shell_v2")


def focus_chat_input(device: VirtualDevice) -> None:
    device.phone.open("chat")
    chat = device.phone.state.apps["chat"].chats[0]
    row = next(n for n in device.phone._current().targets if n.entity == chat.id)
    out(device, "input tap {} {}".format(*center(row.bounds)))
    out(device, "input tap {} {}".format(*center(find(device.phone.hierarchy(),
                                                       resource_id="input").bounds)))


def test_adbkeyboard_broadcasts_type_unicode_into_the_focused_field(device):
    focus_chat_input(device)
    text = "Grüße 👋 你好"
    answer = out(device, "am broadcast -a ADB_INPUT_B64 --es msg "
                 + base64.b64encode(text.encode()).decode())
    assert answer == ("Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\n"
                      "Broadcast completed: result=0\n")
    assert find(device.phone.hierarchy(), resource_id="input").text == text
    out(device, "am broadcast -a ADB_INPUT_TEXT --es msg ' ok'")
    assert find(device.phone.hierarchy(), resource_id="input").text == text + " ok"
    assert device.phone.events[-1].typed == " ok"


def test_a_broadcast_nobody_receives_completes_and_a_bad_message_is_an_error(device):
    focus_chat_input(device)
    before = len(device.phone.events)
    assert "Broadcast completed: result=0" in out(device, "am broadcast -a some.OTHER")
    bad = device.run("am broadcast -a ADB_INPUT_B64 --es msg '@@@'")
    assert bad.code == 1 and b"msg is not base64 of UTF-8 text: '@@@'" in bad.stderr
    assert len(device.phone.events) == before
    # A number extra that is no number fails as Android's parsing does; it completed.
    for extra, value in (("--ei", "notint"), ("--ei", "2147483648"), ("--el", "1.5"),
                         ("--ef", "1_0"), ("--ed", "x"), ("--ed", "nan"), ("--ei", "1" * 5000),
                         ("--el", "0x10"), ("--ei", "08"), ("--el", "9223372036854775808")):
        bad = device.run(f"am broadcast -a ADB_INPUT_TEXT --es msg hi {extra} n {value}")
        assert bad.code == 255 and bad.stderr.endswith(
            f'NumberFormatException: For input string: "{value[:40]}"\n'.encode()), (extra, value)
    for line, last in (("am broadcast -a ADB_INPUT_TEXT --es msg", "msg"),  # the last word
                       ("am broadcast -a ADB_INPUT_TEXT --es", "--es"),  # Android read
                       ("am broadcast -a ADB_INPUT_TEXT -emsg", "-emsg")):
        bad = device.run(line)
        assert bad.code == 255 and bad.stderr.endswith(
            f'IllegalArgumentException: Argument expected after "{last}"\n'.encode()), line
    assert len(device.phone.events) == before
    out(device, "am broadcast -a some.OTHER --ei n -3 --el m 9999999999 --ef f 1.5f --ed d 2e3 "
                "--ed h 0x1p3 --ef i -Infinity --ez b true --el big 9223372036854775807 "
                "--el small -9223372036854775808 --ei hex 0x10 --ei octal 017 --ei sharp '#7f'")
    # Read left to right: a value that looks like an option is a value.
    out(device, "am broadcast -a ADB_INPUT_TEXT --es msg --ei --ez flag true")
    assert device.phone.events[-1].typed == "--ei"


NUMBERS = st.sampled_from(["1e999", "-1e999", "nan", "inf", "1_0", "0x10", "１", "٣", "",
                           "9" * 30, "2147483648", "-2147483649", "10", "10.5", "-3", "+7"])
ARG = st.one_of(NUMBERS, NUMBERS, st.text(max_size=8))  # two numbers in three
# Mostly the arities tap, swipe and keyevent take, so that their numbers are read.
ARGS = st.sampled_from([0, 1, 2, 2, 2, 4, 5, 5, 6]).flatmap(
    lambda size: st.lists(ARG, min_size=size, max_size=size))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(verb=st.sampled_from(["tap", "swipe", "draganddrop", "keyevent", "text", "roll"]),
       args=ARGS)
def test_any_input_arguments_end_in_status_zero_or_an_error_message(device, verb, args):
    """One device for all examples: whatever the inputs did, it must keep answering."""
    result = device.run(shlex.join(["input", verb, *args]))
    assert result.code in (0, 1), (args, result)
    if result.code:
        assert result.stderr.startswith(b"Error: ") and result.stdout == b""
