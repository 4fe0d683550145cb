"""pidof, date and test/[ on the virtual device, as harness command lines use them."""

import time

import pytest

from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.phone import SimPhone
from tests.adbd.test_device import out


@pytest.fixture
def device():
    made = VirtualDevice(SimPhone(540, 1200))
    made.fs.write("/sdcard/a.txt", b"x")
    made.fs.write("/sdcard/empty.txt", b"")
    return made


def test_pidof_tells_whether_an_app_runs(device):
    # `pidof PACKAGE` (a harness's "did the app start / crash" check) was not found (127).
    assert device.run("pidof com.mobileintent.chat").code == 1  # not started
    out(device, "am start com.mobileintent.chat")
    pid = out(device, "pidof com.mobileintent.chat").strip()
    assert pid.isdigit()
    assert out(device, "pidof com.mobileintent.chat") == f"{pid}\n"  # the same while it runs
    out(device, "input keyevent KEYCODE_HOME")  # in the background: still running
    assert out(device, "pidof com.mobileintent.chat") == f"{pid}\n"
    out(device, "am force-stop com.mobileintent.chat")
    stopped = device.run("pidof com.mobileintent.chat")
    assert (stopped.code, stopped.stdout) == (1, b"")
    # The system's processes, the launcher and the input method in use always run.
    system = out(device, "pidof system_server com.android.launcher3 com.android.adbkeyboard")
    assert len(system.split()) == 3 and all(p.isdigit() for p in system.split())
    first = system.split()[0]
    assert out(device, "pidof -s system_server com.android.launcher3") == f"{first}\n"
    assert device.run(f"pidof -o {first} system_server").code == 1
    out(device, "ime set com.android.inputmethod.latin/.LatinIME")
    assert device.run("pidof com.android.adbkeyboard").code == 1
    assert device.run("pidof -x").stderr == b"pidof: Unknown option 'x' (see \"pidof --help\")\n"


def test_ps_lists_the_running_processes(device):
    # `ps -A | grep PACKAGE` was "ps: inaccessible or not found".
    assert device.run("ps -A | grep com.mobileintent.chat").stdout == b""  # not started
    out(device, "am start com.mobileintent.chat")
    pid = out(device, "pidof com.mobileintent.chat").strip()
    line = out(device, "ps -A | grep com.mobileintent.chat").split()
    assert (line[1], line[2], line[-1]) == (pid, "612", "com.mobileintent.chat")
    assert line[0].startswith("u0_a")  # an app's user
    listed = out(device, "ps -A").splitlines()
    assert listed[0].split() == ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S",
                                 "NAME"]
    pids = [int(row.split()[1]) for row in listed[1:]]
    assert pids == sorted(pids) and listed[1].split()[-1] == "init"
    assert [row.split()[-1] for row in out(device, "ps").splitlines()[1:]] == ["sh", "ps"]
    refused = device.run("ps -o pid")
    assert (refused.code, refused.stderr) == (1, b"ps: Unknown option 'o' (see \"ps --help\")\n")


def test_date_reads_the_phones_clock(device):
    clock = device.phone.clock  # "YYYY-MM-DD HH:MM:SS", what the status bar shows
    assert out(device, "date '+%Y-%m-%d %H:%M:%S'") == f"{clock}\n"
    stamp = time.strptime(out(device, "date").strip(), "%a %b %d %H:%M:%S GMT %Y")
    assert time.strftime("%Y-%m-%d %H:%M:%S", stamp) == clock
    seconds = int(out(device, "date +%s"))
    assert time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)) == clock
    assert out(device, "date -u +%%%Z") == "%GMT\n"
    before = device.phone.clock
    refused = device.run("date 010112002030")  # the shell user may not set the clock
    assert (refused.code, refused.stderr) == (1, b"date: cannot set date: Operation not "
                                                 b"permitted\n")
    assert device.phone.clock == before


@pytest.mark.parametrize(("line", "code"), [
    ("[ -f /sdcard/a.txt ]", 0), ("[ -e /sdcard/nope ]", 1), ("test -d /sdcard", 0),
    ("[ -d /sdcard/a.txt ]", 1), ("[ -s /sdcard/empty.txt ]", 1), ("[ -s /sdcard/a.txt ]", 0),
    ("[ -x /sdcard/a.txt ]", 1), ("[ -L /sdcard/a.txt ]", 1), ("[ -z '' ]", 0),
    ("[ -n '' ]", 1), ("[ abc = abc ]", 0), ("[ abc != abc ]", 1), ("[ 10 -gt 9 ]", 0),
    ("[ ' 3' -le -4 ]", 1), ("[ a '<' b ]", 0), ("[ ! -f /sdcard/a.txt ]", 1),
    ("[ -f /sdcard/a.txt -a -d /sdcard ]", 0), ("[ -f /sdcard/nope -o -d /sdcard ]", 0),
    ("[ ! -f /sdcard/nope -a '(' x = y ')' ]", 1), ("test", 1), ("test ''", 1),
    ("test -n", 0), ("[ ! ]", 0),
])
def test_conditions_evaluate_as_sh_evaluates_them(device, line, code):
    # test and [ were not found (127): `[ -f FILE ] && …` lines never ran their second part.
    assert device.run(line).code == code


@pytest.mark.parametrize(("line", "stderr"), [
    ("[ -f /sdcard/a.txt", "/system/bin/sh: [: missing ]\n"),
    ("[ 1 -eq x ]", "/system/bin/sh: [: x: bad number\n"),
    ("test a b", "/system/bin/sh: test: b: unexpected operator/operand\n"),
])
def test_unreadable_conditions_are_status_2(device, line, stderr):
    result = device.run(line)
    assert (result.code, result.stderr.decode()) == (2, stderr)


def test_a_condition_chooses_what_a_line_runs(device):
    assert out(device, "[ -f /sdcard/a.txt ] && echo yes || echo no") == "yes\n"
    assert out(device, "[ -f /sdcard/nope ] && echo yes || echo no") == "no\n"
