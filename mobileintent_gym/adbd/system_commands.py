"""``pidof``, ``ps`` and ``date``: what harnesses ask of the phone's processes and clock.

The phone keeps no processes apart from its apps' screens: an app runs while it has
screens open (see :meth:`~mobileintent_gym.phone.SimPhone.running`), as do the system's
own processes, the launcher and the input method in use, always. Each has a pid of its own
that does not change while the device serves. ``date`` reads the phone's clock (the one
its status bar shows), in GMT, as Android's ``date`` prints it with no time zone set::

    pidof [-s] [-o PID[,PID...]] NAME...   # the pids of NAME's processes; none: status 1
    ps [-A]                                # the shell's processes; -A (-e): all
    date [-u] [+FORMAT]                    # strftime's FORMAT; setting the date is refused
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from mobileintent_gym.adbd.ime import selected
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output
from mobileintent_gym.phone import launcher

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice

# The system's processes that always run, with their pids.
_SYSTEM = {"init": 1, "ueventd": 312, "logd": 534, "servicemanager": 538, "zygote64": 612,
           "surfaceflinger": 688, "adbd": 791, "system_server": 1148,
           "com.android.systemui": 1392, launcher.PACKAGE: 1887}
_FIRST_APP_PID = 4200  # apps' pids: from here, one per installed package in name order
_SHELL_PID = 9100  # the shell's own, and ps's after it
_PS_HEADER = "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME"
_DATE_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
_GMT = timezone(timedelta(0), "GMT")  # Android's zone when none is set


class SystemCommands:
    """``pidof``, ``ps`` and ``date`` on ``device``'s phone (see the module)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def table(self) -> dict[str, CommandFn]:
        """Command name to implementation."""
        return {"pidof": self.pidof, "ps": self.ps, "date": self.date}

    def processes(self) -> dict[str, int]:
        """The running processes' names and pids."""
        phone = self.device.phone
        apps = {package: _FIRST_APP_PID + 37 * n
                for n, package in enumerate(sorted(phone.packages()))}
        running = {package: pid for package, pid in apps.items()
                   if phone.running(phone.packages()[package])}
        ime = selected(self.device.settings).partition("/")[0]
        keyboard = {ime: _FIRST_APP_PID - 211} if ime else {}
        return {**_SYSTEM, **keyboard, **running}

    def pidof(self, inv: Invocation) -> Output:
        """``pidof [-s] [-o PID,...] NAME...``: the pids, status 1 when none runs."""
        args, single, omitted = inv.argv[1:], False, set()
        while args and args[0].startswith("-") and args[0] != "-":
            option, args = args[0], args[1:]
            if option == "-s":
                single = True
            elif option == "-o" and args:
                omitted |= set(args[0].split(","))
                args = args[1:]
            else:
                said = "Missing argument to -o" if option == "-o" else (
                    f"Unknown option '{option.lstrip('-')[:1]}' (see \"pidof --help\")")
                return Output(stderr=f"pidof: {said}\n".encode(), code=1)
        running = self.processes()
        pids = [str(running[name]) for name in args
                if name in running and str(running[name]) not in omitted]
        pids = pids[:1] if single else pids
        return Output(f"{' '.join(pids)}\n".encode() if pids else b"", code=0 if pids else 1)

    def ps(self, inv: Invocation) -> Output:
        """``ps [-A|-e]``: the shell's own processes, or (``-A``) every running one.

        In toybox's columns (user, pid, parent, sizes, state, name), by pid.
        """
        unknown = [arg for arg in inv.argv[1:] if arg not in ("-A", "-e")]
        if unknown:
            return Output(stderr=f"ps: Unknown option '{unknown[0].lstrip('-')[:1]}' (see "
                          f"\"ps --help\")\n".encode(), code=1)
        shell = {"sh": _SHELL_PID, "ps": _SHELL_PID + 1}
        shown = {**self.processes(), **shell} if inv.argv[1:] else shell
        lines = [_PS_HEADER] + [_ps_line(name, pid) for name, pid in
                                sorted(shown.items(), key=lambda item: item[1])]
        return Output("".join(f"{line}\n" for line in lines).encode())

    def date(self, inv: Invocation) -> Output:
        """``date [-u] [+FORMAT]``: the phone's clock; another argument would set it."""
        args = [arg for arg in inv.argv[1:] if arg != "-u"]
        if len(args) > 1 or (args and not args[0].startswith("+")):
            return Output(stderr=b"date: cannot set date: Operation not permitted\n", code=1)
        now = datetime.fromisoformat(self.device.phone.clock).replace(tzinfo=_GMT)
        return Output(f"{_formatted(now, args[0][1:] if args else _DATE_FORMAT)}\n".encode())


def _ps_line(name: str, pid: int) -> str:
    """One process as toybox's ps lists it (its sizes made up, alike for all)."""
    user, parent = _owner(pid)
    return (f"{user:<12}{pid:>6}{parent:>6}{10782796 if pid == 1 else 16040364:>11}"
            f"{9000 if pid == 1 else 145000:>7} do_epoll_wait       0 S {name}")


def _owner(pid: int) -> tuple[str, int]:
    """Who runs process ``pid``, and its parent.

    Init, the native daemons (root) under init, the system server and apps under zygote,
    the shell under adbd.
    """
    if pid >= _SHELL_PID:
        return "shell", _SYSTEM["adbd"]
    if pid < _SYSTEM["system_server"]:
        return "root", 0 if pid == 1 else 1
    if pid == _SYSTEM["system_server"]:
        return "system", _SYSTEM["zygote64"]
    return f"u0_a{pid % 1000:03d}", _SYSTEM["zygote64"]


def _formatted(now: datetime, form: str) -> str:
    """``form`` with strftime's fields of ``now`` filled in.

    ``%s`` (seconds since 1970) included; an unknown field stays as written.
    """

    def field(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == "s":
            return str(int(now.timestamp()))
        return "%" if code == "%" else now.strftime(f"%{code}")

    return re.sub(r"%(.)", field, form, flags=re.DOTALL)
