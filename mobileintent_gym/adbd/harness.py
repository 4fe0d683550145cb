"""Run the virtual device and a private adb server together (tests, benchmarks, demos).

:class:`AdbHost` starts the ``adb`` binary's server on its own port (never the default
5037, so a developer's adb is left alone), connects it to a device address and waits until
the device is online; on exit it kills that adb server. :class:`LocalAdb` adds a phone
served in this process. :class:`ServeProcess` runs ``mobileintent-gym serve-adb`` in a
child process instead, to be measured from outside (memory, answers) as a user runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mobileintent_gym
from mobileintent_gym.adbd.auth import PublicKey
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.server import AdbServer, ServerConfig, ServerThread
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.memory import process_memory, reset_peak_memory
from mobileintent_gym.phone import SimPhone

_LISTENING = re.compile(r"virtual adb device on \S+:(\d+)")


class AdbHost:
    """The adb binary with a private adb server, for the device at ``address``.

    Args:
        address: The device's ``HOST:PORT``, which is also its adb serial.
        adb: Path of the adb binary.
        server_port: Port of the private adb server.
        home: ``HOME`` for adb (where it keeps ``.android/adbkey``); default inherited.
    """

    def __init__(self, address: str, adb: str = "adb", server_port: int = 15037,
                 home: str | Path | None = None) -> None:
        self._address = address
        self.adb_path = adb
        self.server_port = server_port
        self.env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server_port)}
        if home is not None:
            self.env["HOME"] = str(home)

    @property
    def serial(self) -> str:
        """The device's adb serial, ``HOST:PORT``."""
        return self._address

    def adb(self, *args: str, timeout: float = 30.0,
            stdin: bytes | None = None) -> subprocess.CompletedProcess:
        """Run ``adb ARGS`` against the private server (output as bytes)."""
        return subprocess.run([self.adb_path, *args], env=self.env, capture_output=True,
                              timeout=timeout, input=stdin, check=False)

    def connect(self, wait: float = 10.0) -> str:
        """``adb connect`` and wait for the device state; returns it (``device`` when online)."""
        self.adb("connect", self.serial)
        deadline = time.monotonic() + wait
        state = ""
        while time.monotonic() < deadline:
            state = self.adb("-s", self.serial, "get-state").stdout.decode().strip()
            if state in ("device", "unauthorized"):
                return state
            time.sleep(0.05)
        return state or "offline"

    def __enter__(self) -> AdbHost:
        started = self.adb("start-server")
        if started.returncode != 0:
            raise DeviceError(f"adb start-server failed: {started.stderr.decode()[:200]}")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.adb("disconnect", self.serial)
        self.adb("kill-server")


class LocalAdb(AdbHost):
    """A phone served in this process (on a free port), connected to a private adb server.

    Args:
        phone: The phone to serve.
        adb: Path of the adb binary.
        server_port: Port of the private adb server.
        home: ``HOME`` for adb (where it keeps ``.android/adbkey``); default inherited.
        keys: Allow-listed adb keys; non-empty turns RSA AUTH on.
        user: Id of the user whose content ``phone`` holds (what ``cmd mobileintent
            restore-state`` restores); ``None`` for the default content.
        encoder: The model that ranked ``user``'s content, reported with it.
    """

    def __init__(self, phone: SimPhone, adb: str = "adb", server_port: int = 15037,
                 home: str | Path | None = None, keys: tuple[PublicKey, ...] = (),
                 user: str | None = None, encoder: str | None = None) -> None:
        super().__init__("", adb, server_port, home)
        self.device = VirtualDevice(phone, user=user, encoder=encoder)
        self.server = AdbServer(self.device, ServerConfig(port=0, keys=keys))
        self.thread = ServerThread(self.server)

    @property
    def serial(self) -> str:
        """The device's adb serial, ``127.0.0.1:PORT``."""
        return f"127.0.0.1:{self.thread.port}"

    def __enter__(self) -> LocalAdb:
        self.thread.__enter__()
        try:
            super().__enter__()
        except DeviceError:
            self.thread.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        super().__exit__(*exc_info)
        self.thread.__exit__(*exc_info)
        self.device.close()


class ServeProcess:
    """``mobileintent-gym serve-adb`` in a child process on a free loopback port.

    The child imports this same package (its folder leads ``PYTHONPATH``). Its memory is
    read from Linux's ``/proc``: :meth:`memory` gives the resident size now and at its
    peak, and :meth:`reset_peak` starts a new peak.

    Args:
        *args: Further ``serve-adb`` arguments, e.g. ``"--time-limit", "1"``.
        startup: Seconds to wait for the server to listen.
    """

    def __init__(self, *args: str, startup: float = 60.0) -> None:
        self.args = args
        self.startup = startup
        self.port = 0
        self._folder = Path(tempfile.mkdtemp(prefix="serve-adb-"))
        self._process: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self._process.pid

    def log(self) -> str:
        """What the server has logged so far."""
        return (self._folder / "log").read_text(errors="replace")

    def memory(self) -> tuple[int, int]:
        """``(resident bytes now, peak resident bytes)`` of the server process."""
        return process_memory(self.pid)

    def reset_peak(self) -> None:
        """Make the peak resident size start again from the current one."""
        reset_peak_memory(self.pid)

    def __enter__(self) -> ServeProcess:
        package_root = str(Path(mobileintent_gym.__file__).resolve().parents[1])
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        with open(self._folder / "log", "wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "mobileintent_gym.cli", "serve-adb", "--port", "0",
                 *self.args], stdout=subprocess.DEVNULL, stderr=log,
                env={**os.environ, "PYTHONPATH": path})
        deadline = time.monotonic() + self.startup
        while not (found := _LISTENING.search(self.log())):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise DeviceError(f"serve-adb did not start: {self.log()[-500:]!r}")
            time.sleep(0.05)
        self.port = int(found[1])
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._process.poll() is None:
            self._process.send_signal(2)  # SIGINT: the command stops serving and cleans up
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)
