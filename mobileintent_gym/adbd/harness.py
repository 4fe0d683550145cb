"""Run the virtual device and a private adb server together (tests, benchmarks, demos).

:class:`LocalAdb` serves a phone on a free loopback port, starts the ``adb`` binary's
server on its own port (never the default 5037, so a developer's adb is left alone), runs
``adb connect`` and waits until the device is online; on exit it kills that adb server.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from mobileintent_gym.adbd.auth import PublicKey
from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.server import AdbServer, ServerConfig, ServerThread
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import SimPhone


class LocalAdb:
    """A virtual device connected to a private adb server.

    Args:
        phone: The phone to serve.
        adb: Path of the adb binary.
        server_port: Port of the private adb server.
        home: ``HOME`` for adb (where it keeps ``.android/adbkey``); default inherited.
        keys: Allow-listed adb keys; non-empty turns RSA AUTH on.
        user: Id of the user whose content ``phone`` holds (what ``cmd mobileintent
            restore-state`` restores); ``None`` for the default content.
    """

    def __init__(self, phone: SimPhone, adb: str = "adb", server_port: int = 15037,
                 home: str | Path | None = None, keys: tuple[PublicKey, ...] = (),
                 user: str | None = None) -> None:
        self.device = VirtualDevice(phone, user=user)
        self.server = AdbServer(self.device, ServerConfig(port=0, keys=keys))
        self.thread = ServerThread(self.server)
        self.adb_path = adb
        self.server_port = server_port
        self.env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server_port)}
        if home is not None:
            self.env["HOME"] = str(home)

    @property
    def serial(self) -> str:
        """The device's adb serial, ``127.0.0.1:PORT``."""
        return f"127.0.0.1:{self.thread.port}"

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

    def __enter__(self) -> LocalAdb:
        self.thread.__enter__()
        started = self.adb("start-server")
        if started.returncode != 0:
            self.thread.__exit__(None, None, None)
            raise DeviceError(f"adb start-server failed: {started.stderr.decode()[:200]}")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.adb("disconnect", self.serial)
        self.adb("kill-server")
        self.thread.__exit__(*exc_info)
