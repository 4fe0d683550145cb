"""head, tail, wc, tr and cut on the virtual device, as harness command lines use them."""

import pytest

from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.phone import SimPhone
from tests.adbd.test_device import out

LINES = "".join(f"line {n}\n" for n in range(1, 13))  # 12 lines


@pytest.fixture
def device():
    made = VirtualDevice(SimPhone(540, 1200))
    made.fs.write("/sdcard/a.txt", LINES.encode())
    made.fs.write("/sdcard/b.txt", b"one two\tthree\n\nfour\n")
    return made


def test_a_harness_line_that_pipes_dumpsys_through_head_and_tr(device):
    # head, tail, wc, tr and cut were "inaccessible or not found" (127): every harness line
    # that trimmed dumpsys output with them failed.
    focus = out(device, "dumpsys window | grep mCurrentFocus | head -n 1 | tr -d '\\r'")
    assert focus == f"  mCurrentFocus=Window{{7d1e2f0 u0 {device.component()}}}\n"
    windows = sum("Window" in line for line in out(device, "dumpsys window").splitlines())
    assert out(device, "dumpsys window | grep Window | wc -l") == f"{windows}\n"
    assert out(device, "echo com.x/.Y | cut -d / -f 1") == "com.x\n"


@pytest.mark.parametrize(("line", "expected"), [
    ("head /sdcard/a.txt", "".join(f"line {n}\n" for n in range(1, 11))),
    ("head -n 2 /sdcard/a.txt", "line 1\nline 2\n"),
    ("head -n2 /sdcard/a.txt", "line 1\nline 2\n"),
    ("head -3 /sdcard/a.txt", "line 1\nline 2\nline 3\n"),
    ("head -c 8 /sdcard/a.txt", "line 1\nl"),
    ("head -n 1 /sdcard/a.txt /sdcard/b.txt",
     "==> /sdcard/a.txt <==\nline 1\n\n==> /sdcard/b.txt <==\none two\tthree\n"),
    ("head -q -n 1 /sdcard/a.txt /sdcard/b.txt", "line 1\none two\tthree\n"),
    ("head -v -n 1 /sdcard/b.txt", "==> /sdcard/b.txt <==\none two\tthree\n"),
    ("cat /sdcard/a.txt | head -n 1 -", "line 1\n"),
    ("tail -n 2 /sdcard/a.txt", "line 11\nline 12\n"),
    ("tail -2 /sdcard/a.txt", "line 11\nline 12\n"),
    ("tail -n +11 /sdcard/a.txt", "line 11\nline 12\n"),
    ("tail -n 0 /sdcard/a.txt", ""),
    ("tail -c 3 /sdcard/a.txt", "12\n"),
    ("tail /sdcard/a.txt", "".join(f"line {n}\n" for n in range(3, 13))),
    ("wc -l /sdcard/a.txt", "12 /sdcard/a.txt\n"),
    ("wc /sdcard/b.txt", "3 4 20 /sdcard/b.txt\n"),  # one file: no padding
    ("cat /sdcard/b.txt | wc", "      3       4      20\n"),  # three counts: 7 wide
    ("cat /sdcard/b.txt | wc -w", "4\n"),
    ("wc -l /sdcard/a.txt /sdcard/b.txt",
     "     12 /sdcard/a.txt\n      3 /sdcard/b.txt\n     15 total\n"),
    ("echo héllo | wc -c -m", "      7       6\n"),
    ("echo Hello World | tr a-z A-Z", "HELLO WORLD\n"),
    ("echo Hello World | tr '[:lower:]' '[:upper:]'", "HELLO WORLD\n"),
    ("echo hello | tr -d l", "heo\n"),
    ("echo 'a  b   c' | tr -s ' '", "a b c\n"),
    ("echo abc123 | tr -cd '[:digit:]'", "123"),
    ("echo abc | tr abc x", "xxx\n"),  # SET2's last byte stands for the rest
    ("echo a:b | tr : '\\n'", "a\nb\n"),
    ("echo plain | cut -d , -f 2", "plain\n"),  # no delimiter: the whole line,
    ("echo plain | cut -s -d , -f 2", ""),  # or none with -s
    ("echo 'a,b,c' | cut -d , -f 2", "b\n"),
    ("echo 'a,b,c' | cut -d , -f 2-", "b,c\n"),
    ("echo 'a,b,c' | cut -d, -f1,3", "a,c\n"),
    ("echo abcdef | cut -c 2-4", "bcd\n"),
    ("echo abcdef | cut -b -2", "ab\n"),
])
def test_filters_print_what_toybox_prints(device, line, expected):
    assert out(device, line) == expected


@pytest.mark.parametrize(("line", "stderr"), [
    ("head -x /sdcard/a.txt", "head: Unknown option 'x' (see \"head --help\")\n"),
    ("head -n", "head: Missing argument to -n\n"),
    ("head -n x /sdcard/a.txt", "head: not integer: x\n"),
    ("head -n -3 /sdcard/a.txt", "head: -n < 0\n"),
    ("tail -f /sdcard/a.txt", "tail: Unknown option 'f' (see \"tail --help\")\n"),
    ("wc -L /sdcard/a.txt", "wc: Unknown option 'L' (see \"wc --help\")\n"),
    ("echo a | tr a", "tr: Needs 2 arguments\n"),
    ("echo a | tr z-a x", "tr: range z-a is backwards\n"),
    ("echo a | cut -f x", "cut: bad list value 'x'\n"),
    ("echo a | cut -d ab -f 1", "cut: the delimiter must be a single character\n"),
    ("echo a | cut -d ,", "cut: Needs one of -b, -c or -f\n"),
])
def test_bad_filter_lines_say_why_with_status_1(device, line, stderr):
    result = device.run(line)
    assert (result.code, result.stdout, result.stderr.decode()) == (1, b"", stderr)


def test_a_missing_file_is_said_and_the_others_are_read(device):
    result = device.run("head -n 1 /sdcard/nope.txt /sdcard/a.txt")
    assert result.code == 1 and result.stderr.startswith(b"head: ")
    assert b"No such file" in result.stderr
    assert result.stdout == b"==> /sdcard/a.txt <==\nline 1\n"
