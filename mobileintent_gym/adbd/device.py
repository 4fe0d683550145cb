"""The virtual Android device: a SimPhone with properties, files and a shell."""

from __future__ import annotations

from collections import deque

from mobileintent_gym.adbd.android import PhoneCommands
from mobileintent_gym.adbd.commands import FileCommands, basic_commands, property_commands
from mobileintent_gym.adbd.conventions import activity_for
from mobileintent_gym.adbd.dumpsys import Dumpsys
from mobileintent_gym.adbd.filesystem import MemoryFileSystem
from mobileintent_gym.adbd.restore import StateService
from mobileintent_gym.adbd.shell import CommandFn, Shell, ShellResult
from mobileintent_gym.phone import SimPhone

# Features this device implements, advertised in its CNXN banner.
FEATURES = ("shell_v2",)
SHELL_ENV = {"HOME": "/", "PATH": "/product/bin:/apex/com.android.runtime/bin:/system/bin",
             "EXTERNAL_STORAGE": "/sdcard", "ANDROID_DATA": "/data", "USER": "shell"}


class VirtualDevice:
    """What the adb services act on: the phone, an in-memory ``/sdcard`` and a shell.

    Args:
        phone: The simulated phone to serve (the device takes ownership). Its content now
            is what ``cmd mobileintent restore-state`` puts back (:mod:`.restore`).
        serial: The value of ``ro.serialno``.
        user: Id of the user whose content the phone holds (``None``: default content).
    """

    def __init__(self, phone: SimPhone, serial: str = "mobileintent-sim",
                 user: str | None = None) -> None:
        self.phone = phone
        self.initial_state = phone.state.copy()
        self.user = user
        self.fs = MemoryFileSystem()
        self.density_dpi = round(160 * phone.density)
        self.recents: list[str] = []
        # Every command any shell ran, newest last (for tests and troubleshooting).
        self.history: deque[tuple[str, ...]] = deque(maxlen=1000)
        self.props = {
            "ro.product.name": "mobileintent_sim",
            "ro.product.model": "SimPhone",
            "ro.product.device": "simphone",
            "ro.product.brand": "mobileintent",
            "ro.product.manufacturer": "MobileIntent",
            "ro.product.cpu.abi": "x86_64",
            "ro.product.cpu.abilist": "x86_64",
            "ro.build.version.sdk": "34",
            "ro.build.version.release": "14",
            "ro.build.type": "userdebug",
            "ro.build.characteristics": "default",
            "ro.serialno": serial,
            "ro.sf.lcd_density": str(self.density_dpi),
            "sys.boot_completed": "1",
            "persist.sys.locale": "en-US",
        }
        self._commands: dict[str, CommandFn] = {
            **basic_commands(),
            **FileCommands(self.fs).table(),
            **property_commands(self.props),
            **PhoneCommands(self).table(),
            **StateService(self).table(),
            "dumpsys": Dumpsys(self),
        }

    def banner(self) -> bytes:
        """The CNXN payload: device state, identity properties and features."""
        props = ";".join(f"{name}={self.props[name]}" for name in
                         ("ro.product.name", "ro.product.model", "ro.product.device"))
        return f"device::{props};features={','.join(FEATURES)}".encode()

    def run(self, command_line: str, stdin: bytes = b"") -> ShellResult:
        """Run one command line in a fresh shell and note the app in front afterwards."""
        result = Shell(self._commands, self.fs, SHELL_ENV, self.history).run(command_line, stdin)
        self._note_foreground()
        return result

    def component(self) -> str:
        """``package/activity`` of the focused window."""
        return activity_for(self.phone.foreground_package(), self.phone.route())

    def _note_foreground(self) -> None:
        package = self.phone.foreground_package()
        if package in self.phone.packages():
            if package in self.recents:
                self.recents.remove(package)
            self.recents.insert(0, package)
