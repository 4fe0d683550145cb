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
    ("echo héllo | wc -c -m", "      6       7\n"),  # characters, then bytes
    ("wc -L /sdcard/b.txt", "13 /sdcard/b.txt\n"),  # the longest line
    ("wc -l /sdcard/b.txt -w", "3 4 /sdcard/b.txt\n"),  # options after the files too
    ("head /sdcard/a.txt -n 2", "line 1\nline 2\n"),
    ("head -c 3 -n 1 /sdcard/a.txt", "line 1\n"),  # the last of -c and -n wins
    ("head -n 1 -c 3 /sdcard/a.txt", "lin"),
    ("head -n 1k /sdcard/a.txt", LINES),  # counts as toybox reads them: 1k is 1024,
    ("head -n 010 /sdcard/a.txt", "".join(f"line {n}\n" for n in range(1, 9))),  # 010 is 8
    ("head -n 0x2 /sdcard/a.txt", "line 1\nline 2\n"),
    ("head -n +2 /sdcard/a.txt", "line 1\nline 2\n"),
    ("head -q -3 /sdcard/a.txt", "line 1\nline 2\nline 3\n"),
    ("head --lines=1 /sdcard/a.txt", "line 1\n"),
    ("tail +11 /sdcard/a.txt", "line 11\nline 12\n"),
    ("tail --bytes=3 /sdcard/a.txt", "12\n"),
    ("echo Hello World | tr a-z A-Z", "HELLO WORLD\n"),
    ("echo Hello World | tr '[:lower:]' '[:upper:]'", "HELLO WORLD\n"),
    ("echo hello | tr -d l", "heo\n"),
    ("echo 'a  b   c' | tr -s ' '", "a b c\n"),
    ("echo abc123 | tr -cd '[:digit:]'", "123"),
    ("echo abc | tr abc x", "xxx\n"),  # SET2's last byte stands for the rest
    ("echo a:b | tr : '\\n'", "a\nb\n"),
    ("echo abc | tr b", "abc\n"),  # one set and no flag: as it was
    ("echo A1 | tr '[:alnum:]' 'a-zA-Z0-9'", "a1\n"),  # alnum is A-Za-z0-9
    # print and graph were missing: their letters were taken as a set of characters.
    ("echo 'a b' | tr -d '[:graph:]'", " \n"),
    ("echo 'a b' | tr -cd '[:print:]'", "a b"),
    ("echo 'a-q' | tr '\\q' x", "a-x\n"),  # an unknown escape: its backslash, then q
    ("echo plain | cut -d , -f 2", "plain\n"),  # no delimiter: the whole line,
    ("echo plain | cut -s -d , -f 2", ""),  # or none with -s
    ("echo 'a,b,c' | cut -d , -f 2", "b\n"),
    ("echo 'a,b,c' | cut -d , -f 2-", "b,c\n"),
    ("echo 'a,b,c' | cut -d, -f1,3", "a,c\n"),
    ("echo abcdef | cut -c 2-4", "bcd\n"),
    ("echo abcdef | cut -b -2", "ab\n"),
    ("echo abcdef | cut -b 5-,1-2", "abef\n"),  # in the line's order
    ("echo a,b | cut -d , -f -", "a,b\n"),
])
def test_filters_print_what_toybox_prints(device, line, expected):
    assert out(device, line) == expected


@pytest.mark.parametrize(("line", "stderr"), [
    ("head -x /sdcard/a.txt", "head: Unknown option 'x' (see \"head --help\")\n"),
    ("head -n", "head: Missing argument to -n\n"),
    ("head -n x /sdcard/a.txt", "head: not integer: x\n"),
    ("head -n -3 /sdcard/a.txt", "head: -n < 0\n"),
    ("head -n 2z /sdcard/a.txt", "head: not integer: 2z\n"),
    ("tail -f /sdcard/a.txt", "tail: Unknown option 'f' (see \"tail --help\")\n"),
    ("wc -x /sdcard/a.txt", "wc: Unknown option 'x' (see \"wc --help\")\n"),
    ("echo a | tr", "tr: Needs 1 argument\n"),
    ("echo a | tr a b c", "tr: Max 2 arguments\n"),
    ("echo a | tr z-a x", "tr: reverse colating order\n"),
    ("echo a | tr a ''", "tr: set2 can't be empty string\n"),
    ("echo a | cut -f x", "cut: bad -f 'x'\n"),
    ("echo a | cut -f 3-1", "cut: bad -f '3-1'\n"),
    ("echo a | cut -d ab -f 1", "cut: the delimiter must be a single character\n"),
    ("echo a | cut -d ,", "cut: Needs one of -CFfcb\n"),
    ("echo a | cut -b 1 -c 1", "cut: No 'c' with 'b'\n"),
    ("echo a | cut -s -b 1", "cut: -s needs -Ff\n"),
    ("echo a | cut -b " + ",".join(str(n) for n in range(1, 1026, 2)), "cut: select limit\n"),
])
def test_bad_filter_lines_say_why_with_status_1(device, line, stderr):
    result = device.run(line)
    assert (result.code, result.stdout, result.stderr.decode()) == (1, b"", stderr)


def test_a_missing_file_is_said_and_the_others_are_read(device):
    result = device.run("head -n 1 /sdcard/nope.txt /sdcard/a.txt")
    assert result.code == 1 and result.stderr.startswith(b"head: ")
    assert b"No such file" in result.stderr
    assert result.stdout == b"==> /sdcard/a.txt <==\nline 1\n"


def test_a_carriage_return_stays_in_its_line(device):
    # Lines were split at a lone \r too (bytes.splitlines): `head -n 1` of a line with
    # \r in it cut it there, and cut -d , -f 2 dropped a \r before the \n.
    device.fs.write("/sdcard/r.txt", b"a\rb\nc,d\r\ne\n")
    assert out(device, "head -n 1 /sdcard/r.txt") == "a\rb\n"
    assert out(device, "cut -d , -f 2 /sdcard/r.txt") == "a\rb\nd\r\ne\n"
    assert out(device, "tail -n 1 /sdcard/r.txt") == "e\n"


def test_cut_keeps_bytes_that_are_no_characters(device):
    device.fs.write("/sdcard/bin", b"\xff\xfeab\xc3\xa9z\n")
    assert device.run("cut -c 1-5 /sdcard/bin").stdout == b"\xff\xfeab\xc3\xa9\n"


def test_cut_keeps_each_of_many_ranges_on_a_long_line(device):
    # Its speed is measured, not asserted: 500 ranges on one 200 KB line took 8.5 s when
    # every range was tried for every byte (64710a1), 2 ms merged and sliced.
    device.fs.write("/sdcard/long", b"x" * 200_000 + b"\n")
    ranges = ",".join(str(n) for n in range(1, 1000, 2))  # 500, within toybox's 512
    assert out(device, f"cut -b {ranges} /sdcard/long") == "x" * 500 + "\n"
