"""pidof, date and test/[ on the virtual device, as harness command lines use them."""


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


CHAT_PID = "4311"  # chat's uid is 10103, the fourth package's: 4200 + 3 * 37


def test_pidof_tells_whether_an_app_runs(device):
    # `pidof PACKAGE` (a harness's "did the app start / crash" check) was not found (127).
    assert device.run("pidof com.mobileintent.chat").code == 1  # not started
    out(device, "am start com.mobileintent.chat")
    assert out(device, "pidof com.mobileintent.chat") == f"{CHAT_PID}\n"
    out(device, "input keyevent KEYCODE_HOME")  # in the background: still running
    assert out(device, "pidof com.mobileintent.chat") == f"{CHAT_PID}\n"
    out(device, "am force-stop com.mobileintent.chat")
    stopped = device.run("pidof com.mobileintent.chat")
    assert (stopped.code, stopped.stdout) == (1, b"")
    # The system's processes, the launcher and the input method in use always run; the
    # pids come in pid order, each once, as toybox walks /proc.
    said = "pidof com.android.adbkeyboard com.android.launcher3 system_server system_server"
    assert out(device, said) == "1148 4200 4274\n"
    assert out(device, "pidof -s com.android.launcher3 system_server") == "1148\n"
    assert out(device, "pidof -x -o 1148,4274 system_server com.android.launcher3 sh") == (
        "9100\n")
    out(device, "ime set com.android.inputmethod.latin/.LatinIME")
    assert device.run("pidof com.android.adbkeyboard").code == 1
    assert out(device, "pidof com.android.inputmethod.latin") == "4237\n"
    # An input method in use that is not installed runs nothing (it took the IME's pid).
    out(device, "settings put secure default_input_method com.mobileintent.chat/.X")
    assert device.run("pidof com.mobileintent.chat").code == 1
    assert device.run("pidof").stderr == b"pidof: Need 1 argument\n"


def test_ps_lists_the_running_processes(device):
    # `ps -A | grep PACKAGE` was "ps: inaccessible or not found".
    assert device.run("ps -A | grep com.mobileintent.chat").stdout == b""  # not started
    out(device, "am start com.mobileintent.chat")
    assert out(device, "ps -A | grep com.mobileintent.chat") == (
        f"u0_a103       {CHAT_PID}   612   16040364 145000 do_epoll_wait       0 S "
        "com.mobileintent.chat\n")  # its user from its uid, 10103 (pm list packages -U)
    assert "uid:10103" in out(device, "pm list packages -U com.mobileintent.chat")
    listed = out(device, "ps -A").splitlines()
    assert listed[:3] == [
        "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME",
        "root             1     0   10782796   9000 do_epoll_wait       0 S init",
        "root           312     1   16040364 145000 do_epoll_wait       0 S ueventd"]
    assert [row.split()[0] for row in listed if row.endswith((" logd", " adbd"))] == [
        "logd", "shell"]
    pids = [int(row.split()[1]) for row in listed[1:]]
    assert pids == sorted(pids)
    assert out(device, "ps").splitlines()[1:] == [
        "shell         9100   791   16040364 145000 do_epoll_wait       0 S sh",
        "shell         9101  9100   16040364 145000 do_epoll_wait       0 S ps"]
    refused = device.run("ps -o pid")
    assert (refused.code, refused.stderr) == (1, b"ps: Unknown option 'o' (see \"ps --help\")\n")


def test_date_reads_the_phones_clock(device):
    clock = device.phone.clock  # "YYYY-MM-DD HH:MM:SS", what the status bar shows
    assert clock == "2026-03-02 09:41:00"
    assert out(device, "date") == "Mon Mar  2 09:41:00 GMT 2026\n"  # no zone set: GMT
    assert out(device, "date -u") == "Mon Mar  2 09:41:00 UTC 2026\n"
    assert out(device, "date '+%Y-%m-%d %H:%M:%S'") == f"{clock}\n"
    assert out(device, "date +%s") == "1772444460\n"
    assert out(device, "date '+%s%N %3N %:z %-d %%'") == "1772444460000000000 000 +00:00 2 %\n"
    out(device, "input keyevent KEYCODE_HOME")  # an action moves the phone's clock on
    assert out(device, "date '+%Y-%m-%d %H:%M:%S'") == f"{device.phone.clock}\n"
    before = device.phone.clock
    refused = device.run("date 010112002030")  # the shell user may not set the clock
    assert (refused.code, refused.stderr) == (1, b"date: cannot set date: Operation not "
                                                 b"permitted\n")
    assert device.phone.clock == before
    assert device.run("date +a +b").stderr == b"date: Max 1 argument\n"


@pytest.mark.parametrize(("line", "code"), [
    ("[ -f /sdcard/a.txt ]", 0), ("[ -e /sdcard/nope ]", 1), ("test -d /sdcard", 0),
    ("[ -d /sdcard/a.txt ]", 1), ("[ -s /sdcard/empty.txt ]", 1), ("[ -s /sdcard/a.txt ]", 0),
    ("[ -x /sdcard/a.txt ]", 1), ("[ -L /sdcard/a.txt ]", 1), ("[ -z '' ]", 0),
    ("[ -n '' ]", 1), ("[ abc = abc ]", 0), ("[ abc != abc ]", 1), ("[ 10 -gt 9 ]", 0),
    ("[ ' 3' -le -4 ]", 1), ("[ a '<' b ]", 0), ("[ ! -f /sdcard/a.txt ]", 1),
    # Integers as mksh's arithmetic reads them: empty or a name is 0, BASE#DIGITS, 32 bits.
    ("[ '' -eq 0 ]", 0), ("[ x -eq 0 ]", 0), ("[ 1 -eq x ]", 1), ("[ 16#10 -eq 16 ]", 0),
    ("[ 2147483648 -lt 0 ]", 0), ("[ 4294967296 -eq 0 ]", 0), ("[ 010 -eq 10 ]", 0),
    # Up to four words by POSIX's rules for their count: a binary operator first.
    ("[ '(' = ')' ]", 1), ("[ '(' -n ')' ]", 0), ("[ ! = x ]", 1), ("[ ! = ! ]", 0),
    ("[ ! -z '' ]", 1), ("[ -n ]", 0), ("[ = ]", 0),
    # No file has an empty name, nor is a file a folder to go through.
    ("[ -e '' ]", 1), ('[ -e "" ]', 1), ("[ -f /sdcard/a.txt/ ]", 1),
    ("[ -d /sdcard/a.txt/.. ]", 1), ("[ -a /sdcard ]", 0), ("[ -O /sdcard ]", 1),
    ("[ ! -o errexit ]", 0), ("[ /sdcard/a.txt -ef /sdcard/a.txt ]", 0),
    ("[ /sdcard/a.txt -ef /sdcard/empty.txt ]", 1), ("[ /sdcard/a.txt -nt /sdcard/nope ]", 0),
    ("[ -f /sdcard/a.txt -a -d /sdcard ]", 0), ("[ -f /sdcard/nope -o -d /sdcard ]", 0),
    ("[ ! -f /sdcard/nope -a '(' x = y ')' ]", 1), ("test", 1), ("test ''", 1),
    ("test -n", 0), ("[ ! ]", 0),
])
def test_conditions_evaluate_as_sh_evaluates_them(device, line, code):
    # test and [ were not found (127): `[ -f FILE ] && …` lines never ran their second part.
    assert device.run(line).code == code


@pytest.mark.parametrize(("line", "stderr"), [
    ("[ -f /sdcard/a.txt", "/system/bin/sh: [: missing ]\n"),
    ("[ 1x -eq 1 ]", "/system/bin/sh: 1x: bad number '1x'\n"),  # mksh's arithmetic's
    ("test a b", "/system/bin/sh: test: b: unexpected operator/operand\n"),
    ("[ a = b -a c = ]", "/system/bin/sh: [: =: missing second argument\n"),
    ("[ x -a ]", "/system/bin/sh: [: expression expected\n"),
    ("[ " + "'(' " * 150 + "x " + "')' " * 150 + "]",
     "/system/bin/sh: [: expression too deeply nested\n"),
])
def test_unreadable_conditions_are_status_2(device, line, stderr):
    result = device.run(line)
    assert (result.code, result.stderr.decode()) == (2, stderr)


def test_a_condition_chooses_what_a_line_runs(device):
    assert out(device, "[ -f /sdcard/a.txt ] && echo yes || echo no") == "yes\n"
    assert out(device, "[ -f /sdcard/nope ] && echo yes || echo no") == "no\n"
