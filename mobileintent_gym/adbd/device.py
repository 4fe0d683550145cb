"""The virtual Android device: a SimPhone with properties, files and a shell.

Command lines may run on several threads at once (the server runs each off its event
loop). The phone is not thread-safe, so every command that looks at or drives it holds the
device's :attr:`~VirtualDevice.lock`; so must any other code touching the phone while the
device is served. Commands that only compute (``echo``, ``grep``) or use the file system
(which has a lock of its own) run side by side.
"""

from __future__ import annotations

import threading
from collections import deque

from mobileintent_gym.adbd.android import PhoneCommands
from mobileintent_gym.adbd.commands import FileCommands, basic_commands, property_commands
from mobileintent_gym.adbd.conventions import activity_for
from mobileintent_gym.adbd.dumpsys import Dumpsys
from mobileintent_gym.adbd.filesystem import DEFAULT_CAPACITY, MemoryFileSystem
from mobileintent_gym.adbd.ime import Ime
from mobileintent_gym.adbd.limits import ShellLimits, TimeLimitExceeded
from mobileintent_gym.adbd.regex_pool import RegexPool
from mobileintent_gym.adbd.restore import StateService
from mobileintent_gym.adbd.settings import Settings
from mobileintent_gym.adbd.shell import (
    CommandFn,
    Emit,
    Input,
    Invocation,
    Output,
    Shell,
    ShellResult,
)
from mobileintent_gym.adbd.system_commands import SystemCommands
from mobileintent_gym.adbd.testcmd import condition_commands
from mobileintent_gym.adbd.textfilters import text_filters
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.users.pair import PairConfig

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
        pair: How PAIR built ``user``'s content (default ``PairConfig()``); reported by
            ``cmd mobileintent state`` beside the user.
        encoder: The model that ranked ``user``'s content (``UserContent.encoder``),
            reported there too when given.
        limits: What one command line may cost (time and output).
        storage: Bytes the files under ``/sdcard`` may hold together (256 MiB).
    """

    def __init__(self, phone: SimPhone, serial: str = "mobileintent-sim",
                 user: str | None = None, pair: PairConfig | None = None,
                 encoder: str | None = None, limits: ShellLimits | None = None,
                 storage: int = DEFAULT_CAPACITY) -> None:
        self.phone = phone
        self.initial_state = phone.state.copy()
        self.user = user
        self.pair, self.encoder = pair or PairConfig(), encoder
        self.limits = limits or ShellLimits()
        self.lock = threading.RLock()
        self.fs = MemoryFileSystem(storage)
        self._regex = RegexPool()
        self.density_dpi = round(160 * phone.density)
        self.recents: list[str] = []
        self.settings = Settings()
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
            "ro.build.id": "UPB5.230623.003",
            "ro.build.fingerprint": "mobileintent/mobileintent_sim/simphone:14/UPB5.230623.003"
                                    "/1:userdebug/test-keys",
            "ro.build.type": "userdebug",
            "ro.build.characteristics": "default",
            "ro.serialno": serial,
            "ro.sf.lcd_density": str(self.density_dpi),
            "sys.boot_completed": "1",  # what boot-wait loops read: booted
            "dev.bootcomplete": "1",
            "init.svc.bootanim": "stopped",
            "persist.sys.locale": "en-US",
        }
        phone_commands = {**PhoneCommands(self).table(), **StateService(self).table(),
                          **SystemCommands(self).table(), "dumpsys": Dumpsys(self)}
        self._commands: dict[str, CommandFn] = {
            **basic_commands(self._regex, self.fs),
            **FileCommands(self.fs).table(),
            **text_filters(self.fs),
            **condition_commands(self.fs),
            **property_commands(self.props),
            "settings": self.settings,
            "ime": Ime(self.settings),
            **{name: self._holding_lock(command) for name, command in phone_commands.items()},
        }

    def banner(self) -> bytes:
        """The CNXN payload: device state, identity properties and features."""
        props = ";".join(f"{name}={self.props[name]}" for name in
                         ("ro.product.name", "ro.product.model", "ro.product.device"))
        return f"device::{props};features={','.join(FEATURES)}".encode()

    def run(self, command_line: str, stdin: Input = b"", emit: Emit | None = None,
            started: float | None = None) -> ShellResult:
        """Run one command line in a fresh shell within :attr:`limits`.

        Safe to call from several threads at once. Before and after each command on the
        phone the app in front is noted for ``dumpsys activity recents``; the other commands
        (``echo``, files, properties) never wait for the phone, which an app's slow handler
        may hold.

        Args:
            command_line: What to run.
            stdin: Standard input of its first command (see :data:`~.shell.Input`).
            emit: Receives output as it is produced (see :meth:`Shell.run`).
            started: When its time limit began (see :meth:`Shell.run`).
        """
        shell = Shell(self._commands, self.fs, SHELL_ENV, self.history, self.limits)
        return shell.run(command_line, stdin, emit, started)

    def close(self) -> None:
        """Stop the child processes that ``grep`` matches in."""
        self._regex.close()

    def _holding_lock(self, command: CommandFn) -> CommandFn:
        """``command`` run while holding :attr:`lock`, waited for within the time limit."""

        def locked(inv: Invocation) -> Output:
            timeout = inv.budget.timeout()
            if not self.lock.acquire(timeout=-1 if timeout is None else timeout):
                raise TimeLimitExceeded(inv.budget.limits.time_limit)
            try:
                self._note_foreground()  # what the server's own calls opened meanwhile
                return command(inv)
            finally:
                try:
                    self._note_foreground()
                finally:
                    self.lock.release()

        return locked

    def component(self) -> str:
        """``package/activity`` of the focused window."""
        return activity_for(self.phone.foreground_package(), self.phone.route())

    def _note_foreground(self) -> None:
        package = self.phone.foreground_package()
        if package in self.phone.packages():
            if package in self.recents:
                self.recents.remove(package)
            self.recents.insert(0, package)
