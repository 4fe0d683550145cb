"""``load_device("adb:…")`` stops an adb server it had to start, and only that one."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time

import pytest

from mobileintent_gym.adbd import AdbServer, ServerConfig, ServerThread, VirtualDevice
from mobileintent_gym.backends.device_lock import DeviceBusyError
from mobileintent_gym.backends.loader import load_device
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import SimPhone
from tests.helpers import free_port

ADB = shutil.which("adb")
pytestmark = pytest.mark.skipif(ADB is None, reason="the adb binary is not installed "
                                "(apt-get install adb)")


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def stopped(port: int, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while listening(port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A virtual device on a free port, and an adb server port nobody listens on."""
    pytest.importorskip("adbutils", reason="adbutils is not installed (pip install adbutils)")
    port = free_port()
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    monkeypatch.setenv("HOME", str(tmp_path))  # adb keeps its key pair there
    with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as thread:
        yield thread, port
        # However the test ended, no adb server of it stays behind.
        subprocess.run([ADB, "kill-server"], env=os.environ.copy(), capture_output=True,
                       timeout=30, check=False)


def test_the_server_it_started_is_gone_after_close(served):
    thread, port = served
    assert not listening(port)
    device = load_device(f"adb:127.0.0.1:{thread.port}")  # starts a server, connects
    assert listening(port) and device.route() == "launcher"
    device.close()
    assert stopped(port)


def test_a_device_that_refuses_this_hosts_key_says_what_to_do(served):
    # It said "adb connect …: failed to authenticate to …" and no more: which key, where
    # to allow it. The phone allows another host's key only, and holds this one.
    from mobileintent_gym.adbd.auth import PublicKey

    _, port = served
    another = PublicKey((1 << 2047) | 0xC0FFEE, 65537, "another@host")
    strict = ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(
        port=0, keys=(another,), handshake_timeout=2.0)))
    hint = r"; the device does not take this host's adb key \(~/.android/adbkey.pub\)"
    with strict:
        with pytest.raises(DeviceError, match=rf"failed to authenticate .*{hint}"):
            load_device(f"adb:127.0.0.1:{strict.port}")
        assert stopped(port)  # the adb server the failed load started
        # Listed unauthorized by a running adb server now, as a USB phone would be.
        subprocess.run([ADB, "start-server"], capture_output=True, timeout=30, check=True)
        subprocess.run([ADB, "connect", f"127.0.0.1:{strict.port}"], capture_output=True,
                       timeout=30, check=False)
        with pytest.raises(DeviceError, match=rf"(?s)unauthorized.*{hint}"):
            load_device(f"adb:127.0.0.1:{strict.port}")


def test_a_server_that_was_running_stays(served):
    thread, port = served
    env = os.environ.copy()
    subprocess.run([ADB, "start-server"], env=env, capture_output=True, timeout=30, check=True)
    device = load_device(f"adb:127.0.0.1:{thread.port}")
    device.close()
    assert not stopped(port, wait=0.5)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])  # the local host's names: one
def test_a_server_two_devices_use_stays_until_both_are_closed(served, host):
    from mobileintent_gym.backends.adb import AdbConfig, AdbDevice

    thread, port = served
    with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as other:
        first = AdbDevice(AdbConfig(f"127.0.0.1:{thread.port}", server_port=port))  # starts it
        second = AdbDevice(AdbConfig(f"127.0.0.1:{other.port}", server_host=host,
                                     server_port=port))
        first.close()
        assert listening(port) and second.route() == "launcher"
        second.close()
    assert stopped(port)


def test_a_device_whose_setup_fails_stops_the_server_it_started(served, monkeypatch):
    from mobileintent_gym.adbd.shell import Output
    from mobileintent_gym.backends.adb import DeviceCommandError

    thread, port = served
    # The served device's `wm` fails (a test double: no real device fails on demand).
    monkeypatch.setitem(thread.server.device._commands, "wm",
                        lambda invocation: Output(stderr=b"wm: boom\n", code=1))
    with pytest.raises(DeviceCommandError, match="wm: boom"):
        load_device(f"adb:127.0.0.1:{thread.port}")
    assert stopped(port)


def test_a_server_that_went_away_is_not_started_again_behind_the_device(served):
    from mobileintent_gym.backends.adb import DeviceUnavailableError

    thread, port = served
    device = load_device(f"adb:127.0.0.1:{thread.port}")
    subprocess.run([ADB, "kill-server"], env=os.environ.copy(), capture_output=True,
                   timeout=30, check=True)
    assert stopped(port)
    with pytest.raises(DeviceUnavailableError, match="unreachable"):
        device.route()
    assert not listening(port)  # adbutils alone would have run `adb start-server` here
    device.close()


def test_an_empty_serial_is_named_and_starts_no_server(served):
    from mobileintent_gym.backends.adb import AdbConfig, AdbDevice, DeviceUnavailableError

    _, port = served
    with pytest.raises(DeviceUnavailableError, match="no device serial given"):
        AdbDevice(AdbConfig(" ", server_port=port))
    assert not listening(port)


def test_a_setup_cut_short_by_ctrl_c_stops_the_server_it_started(served, monkeypatch):
    from mobileintent_gym.backends.adb_transport import AdbTransport

    thread, port = served

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(AdbTransport, "_state", interrupted)  # Ctrl-C while connecting
    with pytest.raises(KeyboardInterrupt):
        load_device(f"adb:127.0.0.1:{thread.port}")
    assert stopped(port)


CHILD = """
import sys
from mobileintent_gym.backends.adb import AdbConfig, AdbDevice
device = AdbDevice(AdbConfig(f"127.0.0.1:{sys.argv[1]}", server_port=int(sys.argv[2])))
print(device.route(), flush=True)
sys.stdin.readline()
print(device.route(), flush=True)
device.close()
"""


def test_a_server_another_process_uses_stays_until_the_last_user_closes(served):
    # Ownership was counted per process: a worker that started the server stopped it on
    # close under another worker still driving its phone (Connection refused).
    thread, port = served
    with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as other:
        first = load_device(f"adb:127.0.0.1:{thread.port}")  # starts the server
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(other.port), str(port)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 env=os.environ.copy())
        try:
            assert child.stdout.readline().strip() == "launcher"
            first.close()
            assert listening(port)
            child.stdin.write("\n")
            child.stdin.flush()
            assert child.stdout.readline().strip() == "launcher"  # the server still serves it
            assert child.wait(timeout=60) == 0
        finally:
            child.kill()
    assert stopped(port)  # its last user stopped it, though another process had started it


def test_a_zero_timeout_does_not_take_a_running_server_for_none(served):
    # The probe for a server waited config.timeout: at 0 it failed, `adb start-server`
    # exited 0 on the running server, and close() stopped a server the run had found.
    from mobileintent_gym.backends.adb import AdbConfig, AdbDevice

    thread, port = served
    subprocess.run([ADB, "start-server"], env=os.environ.copy(), capture_output=True,
                   timeout=30, check=True)
    with pytest.raises(DeviceError):
        AdbDevice(AdbConfig(f"127.0.0.1:{thread.port}", server_port=port, timeout=1e-9,
                            retries=0))
    assert not stopped(port, wait=0.5)


def test_a_closed_device_drives_nothing_and_the_local_host_is_one_host(served):
    # A closed device still tapped the phone without its lock; "localhost:P" was another
    # device than "127.0.0.1:P" to the lock, so two envs drove one phone.
    from mobileintent_gym.backends.adb import AdbConfig, AdbDevice, DeviceUnavailableError
    from mobileintent_gym.backends.adb_transport import host_key

    thread, port = served
    first = AdbDevice(AdbConfig(f"127.0.0.1:{thread.port}", server_port=port))
    # 127.1 and a port written 0PORT, too, reached the same phone as another device.
    for serial in (f"localhost:{thread.port}", f"127.1:{thread.port}",
                   f"127.0.0.1:0{thread.port}"):
        with pytest.raises(DeviceBusyError):
            AdbDevice(AdbConfig(serial, server_port=port))
    # A refused device was connected under its other name first: `adb shell` then failed
    # with "more than one device/emulator".
    listed = subprocess.run([ADB, "-P", str(port), "devices"], capture_output=True,
                            text=True, timeout=30, check=True).stdout
    assert re.findall(r"^(\S+)\tdevice$", listed, re.M) == [f"127.0.0.1:{thread.port}"]
    assert host_key("127.0.0.2") == "127.0.0.2"  # another address a server may listen on
    first.close()
    with pytest.raises(DeviceUnavailableError, match="was closed"):
        first.act("PRESS[HOME]")
    second = AdbDevice(AdbConfig(f"localhost:{thread.port}", server_port=port))
    assert second.route() == "launcher"
    second.close()


def test_a_device_dropped_unclosed_lets_go_of_its_server_too(served):
    # Dropping the device let go of its lock but not of its use of the server: the server
    # it had started stayed up for the rest of the process.
    import gc

    thread, port = served
    device = load_device(f"adb:127.0.0.1:{thread.port}")  # starts the server
    assert device.route() == "launcher"
    del device
    gc.collect()
    assert stopped(port)
