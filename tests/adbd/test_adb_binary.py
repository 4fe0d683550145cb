"""The virtual device driven by the real ``adb`` binary (skipped when adb is not installed)."""

import concurrent.futures
import contextlib
import io
import os
import pty
import select
import shutil
import signal
import subprocess
import termios
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.adbd.auth import load_keys
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.adbd.limits import ShellLimits
from mobileintent_gym.adbd.server import AdbServer, ServerConfig, ServerThread
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.hierarchy import parse as parse_hierarchy
from tests.helpers import free_port

ADB = shutil.which("adb")
pytestmark = pytest.mark.skipif(ADB is None, reason="the adb binary is not installed "
                                "(apt-get install adb)")


def fresh_phone() -> SimPhone:
    phone = SimPhone()
    phone.reset(seed=0)
    return phone


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    home = tmp_path_factory.mktemp("adbhome")
    with LocalAdb(fresh_phone(), ADB, free_port(), home=home) as adb:
        assert adb.connect() == "device"
        yield adb


def shell(local: LocalAdb, *args: str, stdin: bytes | None = None
          ) -> subprocess.CompletedProcess:
    return local.adb("-s", local.serial, "shell", *args, stdin=stdin)


def test_devices_lists_the_virtual_device_with_its_identity(local):
    listing = local.adb("devices", "-l").stdout.decode()
    line = next(line for line in listing.splitlines() if line.startswith(local.serial))
    assert "device product:mobileintent_sim model:SimPhone device:simphone" in line


def test_shell_input_tap_changes_the_route(local):
    local.thread.call(local.device.phone.act, "PRESS[HOME]")
    node = next(n for n in parse_hierarchy(local.thread.call(local.device.phone.hierarchy)).walk()
                if n.desc == "Music" or n.text == "Music")
    x, y = (node.bounds[0] + node.bounds[2]) // 2, (node.bounds[1] + node.bounds[3]) // 2
    assert shell(local, "input", "tap", str(x), str(y)).returncode == 0
    assert local.thread.call(local.device.phone.route) == "music/home"
    focus = shell(local, "dumpsys window | grep mCurrentFocus").stdout.decode()
    assert "com.mobileintent.music/.route.music.home" in focus


def test_exit_codes_and_stderr_come_through(local):
    assert shell(local, "false").returncode == 1
    missing = shell(local, "frobnicate")
    assert missing.returncode == 127 and b"inaccessible or not found" in missing.stderr


def test_am_start_w_reports_the_launch_a_harness_checks(local):
    # A harness starts an app with `am start -W` and checks "Status: ok" in what it prints;
    # the device printed only "Starting: ...". Its errors come after that line, as on a
    # phone, through the adb client too (stderr merged into stdout by the shell).
    chat = "com.mobileintent.chat/.route.chat.chats"
    said = shell(local, "am", "start", "-W", "-S", "-n", chat)  # -S: stopped, so COLD
    assert said.returncode == 0 and said.stderr == b""
    lines = said.stdout.decode().splitlines()
    assert lines[:5] == ["Stopping: com.mobileintent.chat",
                         f"Starting: Intent {{ cmp={chat} }}", "Status: ok",
                         "LaunchState: COLD", f"Activity: {chat}"]
    assert lines[-1] == "Complete"
    assert local.thread.call(local.device.phone.route) == "chat/chats"
    failed = shell(local, "am start -n com.nope/.Main 2>&1")
    assert (failed.returncode, failed.stdout) == (
        0, b"Starting: Intent { cmp=com.nope/.Main }\nError type 3\nError: Activity class "
        b"{com.nope/com.nope.Main} does not exist.\n")


def test_adb_logcat_clears_and_dumps_the_empty_log(local):
    # The adb client sends "export ANDROID_LOG_TAGS=''; exec logcat -c": exit 127.
    for flag in ("-c", "-d"):
        done = local.adb("-s", local.serial, "logcat", flag)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_settings_a_harness_writes_are_read_back_on_its_next_connection(local):
    # Each `adb shell` is a connection of its own: the tables belong to the device.
    assert shell(local, "settings", "put", "global", "animator_duration_scale", "0"
                 ).returncode == 0
    assert shell(local, "settings get global animator_duration_scale").stdout == b"0\n"
    bad = shell(local, "settings", "get", "local", "x")
    assert bad.returncode == 255 and bad.stderr.startswith(b"Invalid namespace: local\n")


def test_exec_out_screencap_is_the_phone_frame(local):
    png = local.adb("-s", local.serial, "exec-out", "screencap", "-p").stdout
    frame = local.thread.call(local.device.phone.screenshot)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), frame)


def test_screencap_to_a_file_then_pull(local, tmp_path):
    assert shell(local, "screencap -p /sdcard/x.png").returncode == 0
    pulled = local.adb("-s", local.serial, "pull", "/sdcard/x.png", str(tmp_path / "x.png"))
    assert pulled.returncode == 0, pulled.stderr
    frame = local.thread.call(local.device.phone.screenshot)
    assert np.array_equal(np.asarray(Image.open(tmp_path / "x.png").convert("RGB")), frame)


def test_uiautomator_dump_then_pull(local, tmp_path):
    out = shell(local, "uiautomator", "dump", "/sdcard/w.xml")
    assert out.stdout == b"UI hierchary dumped to: /sdcard/w.xml\n"
    pulled = local.adb("-s", local.serial, "pull", "/sdcard/w.xml", str(tmp_path / "w.xml"))
    assert pulled.returncode == 0, pulled.stderr
    text = (tmp_path / "w.xml").read_text()
    assert ET.fromstring(text).tag == "hierarchy"
    assert text == local.thread.call(local.device.phone.hierarchy)


def test_push_then_cat_ls_rm(local, tmp_path):
    data = bytes(range(256)) * 1000
    (tmp_path / "blob.bin").write_bytes(data)
    pushed = local.adb("-s", local.serial, "push", str(tmp_path / "blob.bin"), "/sdcard/")
    assert pushed.returncode == 0, pushed.stderr
    assert local.thread.call(local.device.fs.read, "/sdcard/blob.bin") == data
    assert shell(local, "ls /sdcard | grep blob").stdout == b"blob.bin\n"
    assert shell(local, "rm /sdcard/blob.bin && ls /sdcard/blob.bin").returncode == 1


def test_stdin_lines_run_in_an_interactive_shell(local):
    out = local.adb("-s", local.serial, "shell", stdin=b"echo one\ngetprop ro.product.model\n")
    assert out.stdout == b"one\nSimPhone\n"


def test_input_piped_into_a_command_is_read_by_the_commands_that_read_it(local):
    data = "".join(f"line {i}\n" for i in range(20_000)).encode()  # many v2 frames
    assert shell(local, "cat > /sdcard/piped.txt", stdin=data).returncode == 0
    assert local.thread.call(local.device.fs.read, "/sdcard/piped.txt") == data
    found = shell(local, "grep -c 'line 1'", stdin=data)
    assert (found.returncode, found.stdout) == (0, b"11111\n")
    assert local.adb("-s", local.serial, "exec-in", "cat > /sdcard/in.bin",
                     stdin=b"\x00\xff raw").returncode == 0
    # exec-in returns once its input is sent, as on a phone: the file comes a moment later.
    deadline = time.monotonic() + 10
    while _file(local, "/sdcard/in.bin") != b"\x00\xff raw":
        assert time.monotonic() < deadline, _file(local, "/sdcard/in.bin")
        time.sleep(0.02)
    # A command that reads no input runs at once, input or not.
    assert shell(local, "echo", "ok", stdin=b"ignored").stdout == b"ok\n"


def test_concurrent_exec_in_streams_keep_the_device_online(local):
    # The adb server (29) at times sends a stream's first data as two WRTEs before any
    # OKAY; taking only one dropped the connection (the device went offline) about once
    # in six such streams.
    data = [bytes([65 + i]) * 135_000 for i in range(8)]
    with concurrent.futures.ThreadPoolExecutor(len(data)) as pool:
        for _ in range(10):
            done = pool.map(lambda i: local.adb("-s", local.serial, "exec-in",
                                                f"cat > /sdcard/concurrent{i}.bin",
                                                stdin=data[i]).returncode, range(len(data)))
            assert list(done) == [0] * len(data)
            assert local.adb("-s", local.serial, "get-state").stdout == b"device\n"
    deadline = time.monotonic() + 10
    while [_file(local, f"/sdcard/concurrent{i}.bin") for i in range(len(data))] != data:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def from_file(local: LocalAdb, path, *args: str) -> subprocess.CompletedProcess:
    """``adb shell ARGS < path``: adb sends a file's bytes in frames of up to 1 MiB."""
    with open(path, "rb") as stdin:
        return subprocess.run([ADB, "-s", local.serial, "shell", *args], stdin=stdin,
                              env=local.env, capture_output=True, timeout=60, check=False)


def test_a_script_from_a_file_runs_every_line(local, tmp_path):
    # A frame over 64 KiB read as the end of input: the shell ran nothing and exited 0.
    script = tmp_path / "script.sh"
    script.write_bytes(b"".join(b"echo line%d\n" % i for i in range(20_000)))  # 288 KB
    ran = from_file(local, script)
    assert ran.returncode == 0 and ran.stdout.split() == [b"line%d" % i for i in range(20_000)]


def test_input_from_a_file_over_the_limit_is_refused_as_from_a_pipe(local, tmp_path):
    # A frame over the limit emptied the input: `cat | grep -c .` printed 0, with no error.
    data = b"x" * 199_999 + b"\n"
    (tmp_path / "in.txt").write_bytes(data)
    kept = local.device.limits
    local.device.limits = ShellLimits(10.0, 100_000)
    try:
        piped = shell(local, "cat | grep -c .", stdin=data)
        filed = from_file(local, tmp_path / "in.txt", "cat | grep -c .")
    finally:
        local.device.limits = kept
    for ran in (piped, filed):
        assert ran.returncode == 1 and ran.stdout == b""
        assert b"input over the 100000 byte limit" in ran.stderr


@pytest.mark.parametrize(("script", "code", "out"), [
    (b"echo before\nexit 3\necho after\n", 3, b"before\n"),
    (b"echo before; exit 4\necho after\n", 4, b"before\n"),
    (b"false\nexit\necho after\n", 1, b""),
    (b"echo $(exit 5)x\necho after", 0, b"x\nafter\n"),  # a substitution exits only itself
    (b"echo before\nexit abc\necho after\n", 1, b"before\n"),  # sh reading a script ends
    (b"echo before\nexit 1 2\necho after\n", 1, b"before\n"),
])
def test_exit_ends_a_line_mode_shell_with_its_status(local, script, code, out):
    # Only a line that was exactly "exit" ended it; "exit 3" ran on, and exited 0.
    ran = local.adb("-s", local.serial, "shell", stdin=script)
    assert (ran.returncode, ran.stdout) == (code, out), ran.stderr


def _file(local: LocalAdb, path: str) -> bytes | None:
    fs = local.device.fs
    return local.thread.call(lambda: fs.read(path) if fs.exists(path) else None)


def test_an_interactive_shell_on_a_terminal_echoes_and_runs_lines_ended_by_enter(local):
    # adb puts a terminal in raw mode: Enter arrives as CR, and the device echoes.
    pid, terminal = pty.fork()
    if pid == 0:
        os.execvpe(ADB, [ADB, "-s", local.serial, "shell"], local.env)
    try:
        # adb sets raw mode when it starts, flushing what was typed before: wait for it.
        deadline = time.monotonic() + 20
        while termios.tcgetattr(terminal)[3] & termios.ICANON:
            assert time.monotonic() < deadline, "adb never put the terminal in raw mode"
            time.sleep(0.05)
        # A prompt first and after each line, as a phone's shell writes it: expect-style
        # drivers wait for it (there was none). Each line is typed once the last one's
        # output is back: the echo comes first.
        prompt = b"simphone:/ $ "
        assert _typed(terminal, b"", prompt) == prompt
        assert _typed(terminal, b"echo h''i\r", b"hi\r\n" + prompt) == (
            b"echo h''i\r\nhi\r\n" + prompt)
        # exit's bad number ends the line, not a shell on a terminal: its prompt comes back.
        said = b"/system/bin/sh: exit: bad number: x\r\n"
        assert _typed(terminal, b"exit x; echo no\r", said + prompt) == (
            b"exit x; echo no\r\n" + said + prompt)
        erased = b"echo gone\b \b\b \b\b \b\b \bne\r\nne\r\n"  # DEL erases a character
        assert _typed(terminal, b"echo gone\x7f\x7f\x7f\x7fne\r", b"ne\r\n" + prompt) == (
            erased + prompt)
        assert _typed(terminal, b"\r", b"\r\n" + prompt) == b"\r\n" + prompt  # an empty line
        assert _typed(terminal, b"exit\r", b"exit\r\n") == b"exit\r\n"
        assert _exit_code(pid, time.monotonic() + 20) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        os.close(terminal)


def _typed(terminal: int, keys: bytes, until: bytes) -> bytes:
    """Type ``keys`` on the terminal; what it shows until it ends with ``until`` (20 s)."""
    os.write(terminal, keys)
    seen, deadline = b"", time.monotonic() + 20
    while not seen.endswith(until) and time.monotonic() < deadline:
        if select.select([terminal], [], [], 0.2)[0]:
            seen += os.read(terminal, 4096)
    return seen


def _exit_code(pid: int, deadline: float) -> int | None:
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    return None


def test_rsa_auth_admits_adbs_own_key_and_refuses_a_stranger(tmp_path, test_key):
    home = tmp_path / "home"
    (home / ".android").mkdir(parents=True)
    subprocess.run([ADB, "keygen", str(home / ".android" / "adbkey")], check=True,
                   capture_output=True, timeout=30)
    adb_key = load_keys(home / ".android" / "adbkey.pub")
    with LocalAdb(fresh_phone(), ADB, free_port(), home=home, keys=adb_key) as adb:
        assert adb.connect() == "device"
        assert adb.adb("-s", adb.serial, "shell", "echo", "ok").stdout == b"ok\n"
    stranger = (test_key.public,)
    with LocalAdb(fresh_phone(), ADB, free_port(), home=home, keys=stranger) as adb:
        # As a phone whose user has not allowed the key ("offline" before: the connection
        # was closed at once, and the host retried it 4 times a second).
        adb.adb("connect", adb.serial)
        listed = f"{adb.serial}\tunauthorized".encode()
        deadline = time.monotonic() + 10
        while listed not in adb.adb("devices").stdout:
            assert time.monotonic() < deadline, adb.adb("devices").stdout
            time.sleep(0.05)
        refused = adb.adb("-s", adb.serial, "shell", "echo", "ok")
        assert refused.returncode != 0 and b"device unauthorized" in refused.stderr
        assert adb.thread.call(lambda: [argv for argv in adb.device.history]) == []


def echo_when_online(local: LocalAdb, serial: str, text: str, wait: float = 20.0) -> bytes:
    """``echo text`` on ``serial`` once the adb server has it online (or the last reply)."""
    deadline = time.monotonic() + wait
    while True:
        reply = local.adb("-s", serial, "shell", "echo", text)
        if reply.returncode == 0 or time.monotonic() > deadline:
            return reply.stdout + reply.stderr
        time.sleep(0.2)


def test_the_adb_server_gets_back_a_phone_served_again_on_the_same_port(local):
    # Restarting serve-adb (for another user, say) must not leave the device offline: the
    # adb server reconnects by itself with a CNXN it does not checksum.
    port = 0
    for text in ("before", "after"):
        device = VirtualDevice(fresh_phone())
        with ServerThread(AdbServer(device, ServerConfig(port=port))) as served:
            port, serial = served.port, f"127.0.0.1:{served.port}"
            if text == "before":
                local.adb("connect", serial)
            assert echo_when_online(local, serial, text) == f"{text}\n".encode()
            assert not any("checksum" in r for r in served.server.recent_reasons)
        device.close()
    local.adb("disconnect", serial)


def test_adb_pulls_a_file_larger_than_one_wrte(local, tmp_path):
    # Catches: the RECV step counted without the DATA headers, so a WRTE of file data came
    # to maxdata + 128 bytes; adb drops such a packet (payload over MAX_PAYLOAD).
    blob = bytes(range(256)) * (2 * 1024 * 1024 // 256 + 123)
    (tmp_path / "big.bin").write_bytes(blob)
    pushed = local.adb("-s", local.serial, "push", str(tmp_path / "big.bin"), "/sdcard/big.bin")
    assert pushed.returncode == 0, pushed.stderr
    pulled = local.adb("-s", local.serial, "pull", "/sdcard/big.bin", str(tmp_path / "back.bin"),
                       timeout=60)
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "back.bin").read_bytes() == blob
