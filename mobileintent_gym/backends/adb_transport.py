"""The adb-server plumbing under :class:`~mobileintent_gym.backends.adb.AdbDevice`.

Commands go through adbutils' connection to the adb server, but not through its
``shell()``: that opens a second connection per call to ask the server's version, and
closes each connection with a fixed 10 ms sleep, which made every command take ~22 ms on
loopback instead of ~1 ms (measured with ``benchmarks/adb_roundtrip.py``).

Reads are retried (bounded) on timeouts; actions are never retried, since a repeated tap
is a different action. Errors are :class:`DeviceError` subclasses raised ``from`` the
adbutils cause; a device that vanishes gives :class:`DeviceUnavailableError`.

When no adb server listens on the configured local port, the transport starts one (the
``adb`` binary on ``PATH``, else adbutils' own) and stops it again once no transport of
any process of this user uses it (each holds a shared lock on it while open,
:func:`device_lock.use_server`); a server that was already running is left alone.
A server that goes away is not started again behind the caller's back (adbutils would
start one on ``$ANDROID_ADB_SERVER_PORT``, whatever port was configured): commands then
fail with :class:`DeviceUnavailableError`. A serial ``HOST:PORT`` that the server does not
know yet is connected first, as ``adb connect`` does.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import re
import socket
import struct
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar

from mobileintent_gym.backends import device_lock
from mobileintent_gym.errors import DeviceError, require

if TYPE_CHECKING:
    from mobileintent_gym.backends.adb import AdbConfig

_V2_HEADER = struct.Struct("<BI")  # shell v2 packet: id (1 stdout, 2 stderr, 3 exit), length
_V2_EXIT = 3
_PIECE = 1 << 16  # bytes asked of the socket at a time
MAX_ANSWER = 256 << 20
"""Bytes a command's answer may hold (a 3840x2160 screenshot's PNG is at most ~33 MB): a
device that streams without end filled 4.7 GB of memory before the deadline stopped it."""
_NETWORK_SERIAL = re.compile(r"^[\w.\-]+:\d+$")
_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
T = TypeVar("T")
_PROBE_SECONDS = 2.0  # to tell whether an adb server listens (not config.timeout: 0 is allowed)
_CLOSED = object()  # a transport's server use once closed


def host_key(host: str) -> str:
    """``localhost`` for the local host's names and address however written, else ``host``.

    ``127.1`` and ``0:0:0:0:0:0:0:1`` are ``localhost``; another address is written one way
    (``10.1`` as ``10.0.0.1``). Other loopback addresses (``127.0.0.2``) stay apart: a
    server may listen on each.
    """
    if host in _LOCAL_HOSTS:
        return "localhost"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:  # the short and numeric IPv4 forms that connect() takes (127.1)
            address = ipaddress.ip_address(socket.inet_aton(host))
        except OSError:
            return host  # a name
    return "localhost" if str(address) in _LOCAL_HOSTS else str(address)


class DeviceUnavailableError(DeviceError):
    """The device is not connected, went away, or the adb server is unreachable."""


class DeviceTimeoutError(DeviceError):
    """The device did not answer in time (after the allowed retries)."""


class DeviceCommandError(DeviceError):
    """A device command failed or answered something unexpected; the message quotes it."""


def _until_close(connection: Any) -> bytes:
    """Everything the device sends until it closes the stream.

    Read into one buffer: adbutils' ``read_until_close`` copies all it has read at every
    4 KiB, which is quadratic in the size of a screenshot.
    """
    data = bytearray()
    while piece := connection.read(_PIECE):
        data += piece
        if len(data) > MAX_ANSWER:
            raise DeviceCommandError(f"the device's answer passed {MAX_ANSWER >> 20} MiB "
                                     "without ending")
    return bytes(data)


def _v2_result(connection: Any) -> tuple[int, bytes]:
    """Read shell v2 packets until the exit code: ``(exit code, stdout and stderr)``.

    Raises:
        EOFError: When the stream ends before the exit code (the device went away).
    """
    output = []
    while True:
        kind, length = _V2_HEADER.unpack(connection.read_exact(_V2_HEADER.size))
        data = connection.read_exact(length)
        if kind == _V2_EXIT:
            return (data[0] if data else 255), b"".join(output)
        output.append(data)


def device_key(config: AdbConfig) -> str:
    """The device as any process reaching it here names it: its server, then serial.

    The local host's names count as one, in the serial's host as in the server's.
    """
    serial = config.serial
    if _NETWORK_SERIAL.match(serial):
        host, _, port = serial.rpartition(":")
        serial = f"{host_key(host)}:{int(port)}"  # 016555 is port 16555
    return f"{server_key(config)}/{serial}"


def server_key(config: AdbConfig) -> str:
    """The adb server as any process reaching it here names it (``localhost:5037``)."""
    return f"{host_key(config.server_host)}:{config.server_port}"


class AdbTransport:
    """Commands to one device through the adb server, one fresh connection each.

    Args:
        config: Where the device and the adb server are, timeouts and retries.

    Raises:
        DependencyNotInstalled: Without adbutils.
        DeviceUnavailableError: When the device is not attached and online.
    """

    def __init__(self, config: AdbConfig) -> None:
        if not config.serial.strip():
            raise DeviceUnavailableError(f"no device serial given ({config.serial!r}); name "
                                         "one, e.g. emulator-5554 or 127.0.0.1:15555")
        self.config = config
        self._adbutils = require("adbutils", "android")
        self._client = _client_type(self._adbutils)(config.server_host, config.server_port,
                                                    socket_timeout=config.timeout)
        self._server_use = device_lock.use_server(self.server_key())
        try:
            self._ensure_server()
            self._device = self._call(lambda: self._client.device(config.serial), "device",
                                      retry=False)
            state = self._state()
            if state != "device":
                raise DeviceUnavailableError(
                    f"device {config.serial!r} is {state!r}, not online")
            features = self._call(lambda: self._query("features"), "features", retry=True)
        except BaseException:  # Ctrl-C included: the server's count must not stay up
            self.close()
            raise
        self._shell_v2 = "shell_v2" in features.split(",")

    def close(self) -> None:
        """Let go of the adb server; stop it if one of ours started it and none uses it now.

        Envs of every process of this user count (:func:`device_lock.last_use`).
        """
        use, self._server_use = self._server_use, _CLOSED
        if use is _CLOSED:
            return
        with device_lock.last_use(self.server_key(), use) as last:
            if last:
                with suppress(self._adbutils.AdbError, OSError):  # gone already
                    self._client.server_kill()

    def server_key(self) -> str:
        """The adb server as any process reaching it here names it (:func:`server_key`)."""
        return server_key(self.config)

    def _ensure_server(self) -> None:
        """Start an adb server on the configured local port when none listens there.

        One started here is noted (:func:`device_lock.mark_started`) for the last env
        using it to stop.

        Raises:
            DeviceUnavailableError: When none listens and none can be started.
        """
        host, port = self.config.server_host, self.config.server_port
        try:
            socket.create_connection((host, port), timeout=_PROBE_SECONDS).close()
            return
        except OSError:
            if host not in _LOCAL_HOSTS:
                raise DeviceUnavailableError(f"no adb server answers on {host}:{port}") from None
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(port)}
        try:
            done = subprocess.run([self._adbutils.adb_path(), "start-server"], env=env,
                                  capture_output=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError, self._adbutils.AdbError) as err:
            raise DeviceUnavailableError(f"no adb server on port {port}, and none could be "
                                         f"started: {err}") from err
        if done.returncode != 0:
            raise DeviceUnavailableError(f"adb start-server on port {port} failed: "
                                         f"{done.stderr.decode(errors='replace')[:200]}")
        device_lock.mark_started(self.server_key())

    def _state(self) -> str:
        """The device's state; a network serial the server does not know is connected first."""
        try:
            return self._get_state()
        except DeviceUnavailableError as err:
            if not (_NETWORK_SERIAL.match(self.config.serial) and "not found" in str(err)):
                raise
            unknown = err
        answer = self._call(lambda: self._client.connect(self.config.serial,
                                                         self.config.timeout),
                            "connect", retry=False)
        if not answer.startswith(("connected", "already connected")):
            hint = _AUTH_HINT if "authenticate" in answer else ""
            raise DeviceUnavailableError(f"adb connect {self.config.serial}: {answer}{hint}"
                                         ) from unknown
        deadline = time.monotonic() + self.config.timeout
        while True:  # the handshake finishes after `connect` answers
            state = self._get_state()
            if state in ("device", "unauthorized") or time.monotonic() > deadline:
                return state
            time.sleep(self.config.retry_delay)

    def _get_state(self) -> str:
        """``get-state``; a device whose key check failed is named with what to do."""
        try:
            return self._call(lambda: self._query("get-state"), "get-state", retry=True)
        except DeviceUnavailableError as err:
            if "unauthorized" in str(err):  # listed already, its key refused (a USB phone)
                raise DeviceUnavailableError(f"{err}{_AUTH_HINT}") from err
            raise

    def read(self, command: str) -> str:
        """The output of a shell command that only reads (retried on timeouts)."""
        data = self._call(lambda: self._service(f"shell:{command}"), command, retry=True)
        return data.decode("utf-8", errors="replace")

    def read_bytes(self, command: str) -> bytes:
        """The raw output of ``exec:command`` (binary-safe, retried on timeouts)."""
        return self._call(lambda: self._service(f"exec:{command}"), command, retry=True)

    def run(self, command: str) -> str:
        """Run an action's command once and return its output (non-zero exit: an error).

        The status comes from shell v2; on devices without it (before Android 7) from
        adbutils' ``echo $?`` fallback.

        Raises:
            DeviceCommandError: When the command exits non-zero; the message quotes it.
        """
        if self._shell_v2:
            code, output = self._call(lambda: self._service(f"shell,v2,raw:{command}", _v2_result),
                                      command, retry=False)
        else:
            result = self._call(lambda: self._device.shell2(
                command, timeout=self.config.timeout, encoding=None), command, retry=False)
            code, output = result.returncode, result.output
        if code != 0:
            raise DeviceCommandError(f"{command!r} exited {code}: {output.strip()[:200]!r}")
        return output.decode("utf-8", errors="replace")

    def _query(self, request: str) -> str:
        """Ask the adb server about this device (``get-state``, ``features``).

        adbutils' own ``get_state()`` waits up to 600 s whatever its client's timeout says;
        this honours :attr:`AdbConfig.timeout`.
        """
        return self._exchange((f"host-serial:{self.config.serial}:{request}",),
                              lambda connection: connection.read_string_block())

    def _service(self, service: str, read: Callable[[Any], T] = _until_close) -> T:
        """Open ``service`` (``shell:wm size``, ``exec:screencap -p`` ...) and read its answer."""
        return self._exchange((f"host:transport:{self.config.serial}", service), read)

    def _exchange(self, requests: tuple[str, ...], read: Callable[[Any], T]) -> T:
        """Send adb-server requests on one fresh connection, then ``read`` the answer.

        The socket is closed directly: adbutils' ``close()`` sleeps 10 ms (module notes).
        """
        connection = self._client.make_connection(timeout=self.config.timeout)
        try:
            for request in requests:
                connection.send_command(request)
                connection.check_okay()
            return read(connection)
        finally:
            connection.conn.close()

    def _call(self, function: Callable[[], T], what: str, retry: bool) -> T:
        if self._server_use is _CLOSED:  # it holds no lock: another env may drive the phone
            raise DeviceUnavailableError(f"{what!r}: the device {self.config.serial!r} was "
                                         "closed; open a new one")
        adbutils = self._adbutils
        attempts = self.config.retries + 1 if retry else 1
        attempt = 1
        while True:
            try:
                return function()
            except adbutils.AdbTimeout as err:
                if attempt >= attempts:
                    raise DeviceTimeoutError(
                        f"{what!r} on {self.config.serial!r} timed out after {attempts} "
                        f"attempt(s) of {self.config.timeout}s") from err
            except (adbutils.AdbError, OSError, EOFError) as err:
                raise DeviceUnavailableError(
                    f"{what!r} failed: device {self.config.serial!r} is unreachable ({err})"
                ) from err
            except ValueError as err:  # adbutils reading a length that is no hex number
                raise DeviceCommandError(
                    f"{what!r}: the adb server or {self.config.serial!r} answered outside the "
                    f"adb protocol ({err})") from err
            attempt += 1
            time.sleep(self.config.retry_delay)


_AUTH_HINT = ("; the device does not take this host's adb key (~/.android/adbkey.pub): "
              "allow it on the phone (its USB debugging dialog), or add it to the file "
              "that serve-adb --keys names")


@functools.cache
def _client_type(adbutils: Any) -> type:
    """An adbutils client that never starts an adb server of its own accord.

    When it cannot connect, adbutils runs ``adb start-server`` on the port of
    ``$ANDROID_ADB_SERVER_PORT`` rather than the one configured, and nothing stops that
    server later; this client's connections fail (``AdbConnectionError``) instead.
    """
    class Connection(adbutils.AdbConnection):
        deadline: float | None = None  # monotonic time by which the exchange must end

        def _safe_connect(self) -> Any:
            return self._create_socket()

        def _read_fully(self, n: int) -> bytes:
            buffer = bytearray()
            while len(buffer) < n:
                if self.deadline is not None:
                    left = self.deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError("the command's time is up")
                    self.conn.settimeout(left)
                chunk = self.conn.recv(n - len(buffer))
                if not chunk:
                    break
                buffer += chunk
            return bytes(buffer)

    class Client(adbutils.AdbClient):
        def __init__(self, host: str, port: int, socket_timeout: float) -> None:
            super().__init__(host, port, socket_timeout)
            self.socket_timeout = socket_timeout

        def make_connection(self, timeout: float | None = None) -> Any:
            """A connection for one exchange, which must end within the client's timeout.

            That bounds adbutils' own calls too (``shell2`` on a device without shell v2),
            which open their connection with adbutils' default timeout whatever they were
            given.
            """
            connection = Connection(self.host, self.port)
            connection.conn.settimeout(timeout or self.socket_timeout)
            connection.deadline = time.monotonic() + self.socket_timeout
            return connection

    return Client
