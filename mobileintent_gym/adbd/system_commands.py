"""``pidof``, ``ps`` and ``date``: what harnesses ask of the phone's processes and clock.

The phone keeps no processes apart from its apps' screens: an app runs while it has
screens open (see :meth:`~mobileintent_gym.phone.SimPhone.running`; one left with BACK
has none), the system's own processes, the launcher and the input method in use always,
and the shell (``sh``) that runs the command. Each has a pid of its own that does not
change while the device serves (an app started again keeps its pid, where a phone's would
change), and each app its own user (``u0_aNN``, from the uid ``pm list packages -U``
shows). ``date`` reads the phone's clock (the one its status bar shows) in GMT, as Android
prints it with no time zone set (UTC with ``-u``)::

    pidof [-s] [-x] [-o PID[,PID...]] NAME...   # the pids of NAME's processes; none: 1
    ps [-A]                                     # the shell's processes; -A (-e): all
    date [-u] [+FORMAT]                         # strftime's FORMAT, %s, %N, %:z
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from mobileintent_gym.adbd.android import package_uids
from mobileintent_gym.adbd.ime import INSTALLED, selected
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output
from mobileintent_gym.adbd.toybox_args import UsageError, read_options, refusing
from mobileintent_gym.phone import launcher

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice

# The system's processes that always run: pid, user, parent pid.
_SYSTEM = {"init": (1, "root", 0), "ueventd": (312, "root", 1), "logd": (534, "logd", 1),
           "servicemanager": (538, "system", 1), "zygote64": (612, "root", 1),
           "surfaceflinger": (688, "system", 1), "adbd": (791, "shell", 1),
           "system_server": (1148, "system", 612)}
_FIRST_APP_PID = 4200  # packages' pids: from here, 37 apart, in their uids' order
_SHELL = (9100, "shell", 791)  # the shell running the command, under adbd
_SIZES = {1: (10782796, 9000)}  # VSZ and RSS (kB) of init; every other process the default
_DEFAULT_SIZES = (16040364, 145000)
_PS_HEADER = "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME"
_DATE_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
_ZONES = {False: timezone(timedelta(0), "GMT"), True: timezone.utc}  # by -u


class SystemCommands:
    """``pidof``, ``ps`` and ``date`` on ``device``'s phone (see the module)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def table(self) -> dict[str, CommandFn]:
        """Command name to implementation."""
        return {"pidof": refusing(self.pidof), "ps": refusing(self.ps),
                "date": refusing(self.date)}

    def processes(self) -> dict[str, tuple[int, str, int]]:
        """The running processes: name to pid, user and parent pid, by pid."""
        phone = self.device.phone
        installed = phone.packages()
        uids = package_uids(installed)
        ime = selected(self.device.settings)
        running = {package for package, app_id in installed.items() if phone.running(app_id)}
        running |= {launcher.PACKAGE} | ({ime.partition("/")[0]} if ime in INSTALLED else set())
        apps = {package: (_FIRST_APP_PID + 37 * n, f"u0_a{uid - 10000}", _SYSTEM["zygote64"][0])
                for n, (package, uid) in enumerate(sorted(uids.items(), key=lambda p: p[1]))
                if package in running}
        found = {**_SYSTEM, **apps, "sh": _SHELL}
        return dict(sorted(found.items(), key=lambda item: item[1][0]))

    def pidof(self, inv: Invocation) -> Output:
        """``pidof [-s] [-x] [-o PID,...] NAME...``: the pids, in pid order; none: status 1."""
        options, names = read_options(inv.argv, "sx", "o")
        if not names:
            raise UsageError("Need 1 argument")
        omitted = set(options.get("o", "").split(","))
        pids = [str(pid) for name, (pid, _, _) in self.processes().items()
                if name in names and str(pid) not in omitted]
        pids = pids[:1] if "s" in options else pids
        return Output(f"{' '.join(pids)}\n".encode() if pids else b"", code=0 if pids else 1)

    def ps(self, inv: Invocation) -> Output:
        """``ps [-A|-e]``: the shell's processes, or (``-A``) every running one, by pid.

        In toybox's columns (user, pid, parent, sizes, state, name).
        """
        options, operands = read_options(inv.argv, "Ae", "")
        if operands:
            raise UsageError(f"Unknown argument '{operands[0]}'")
        listed = self.processes() if options else {"sh": _SHELL}
        listed["ps"] = (_SHELL[0] + 1, "shell", _SHELL[0])
        lines = [_PS_HEADER, *(_ps_line(name, *row) for name, row in listed.items())]
        return Output("".join(f"{line}\n" for line in lines).encode())

    def date(self, inv: Invocation) -> Output:
        """``date [-u] [+FORMAT]``: the phone's clock.

        An argument that would set it is refused, as the shell user may not set it.
        """
        options, operands = read_options(inv.argv, "u", "")
        if len(operands) > 1:
            raise UsageError("Max 1 argument")
        if operands and not operands[0].startswith("+"):
            return Output(stderr=b"date: cannot set date: Operation not permitted\n", code=1)
        now = datetime.fromisoformat(self.device.phone.clock).replace(
            tzinfo=_ZONES["u" in options])
        form = operands[0][1:] if operands else _DATE_FORMAT
        return Output(f"{_formatted(now, form)}\n".encode())


def _ps_line(name: str, pid: int, user: str, parent: int) -> str:
    """One process as toybox's ps lists it (its sizes made up)."""
    virtual, resident = _SIZES.get(pid, _DEFAULT_SIZES)
    return (f"{user:<12}{pid:>6}{parent:>6}{virtual:>11}{resident:>7} do_epoll_wait       0 "
            f"S {name}")


_FIELD = re.compile(r"%([-_0^#]*)(\d*)(:?)(.)", re.DOTALL)


def _formatted(now: datetime, form: str) -> str:
    """``form`` with strftime's fields of ``now`` filled in.

    Also ``%s`` (seconds since 1970), ``%N`` (nanoseconds, ``%3N`` the first three digits)
    and ``%:z`` (``+00:00``); a field strftime does not know stays as written.
    """

    def field(match: re.Match[str]) -> str:
        _, width, colon, code = match.groups()
        if code == "s":
            return str(int(now.timestamp()))
        if code == "N":
            return f"{now.microsecond * 1000:09d}"[:int(width or 9)]
        if code == "%":
            return "%"
        if colon and code == "z":
            offset = now.strftime("%z")
            return f"{offset[:3]}:{offset[3:]}"
        return now.strftime(match.group())

    return _FIELD.sub(field, form)
