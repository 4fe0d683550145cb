"""``cmd mobileintent``: the virtual device's own service, to put its content back.

A phone that keeps its content between episodes (``serve-adb --user``) would carry what one
episode did into the next: a track played, a reply sent. Android's ``cmd SERVICE ARGS``
reaches a system service; the virtual device adds one::

    cmd mobileintent restore-state   the user's content it was served with, launcher in
                                     front; prints what "state" prints (status 1, nothing
                                     changed, when it was served without --user)
    cmd mobileintent state           prints "user: NAME" ("user: -": default content) and,
                                     for a user, "pair: SETTINGS": how PAIR built the
                                     content (PairConfig.summary(), JSON on one line),
                                     and "encoder: MODEL", the model that ranked it

``Act2Intent-Execute-v0`` with ``load_state=False`` sends ``restore-state`` at every reset.
A real device has no such service and answers like Android: ``cmd: Can't find service:
mobileintent``, exit status 20 — that is how a client tells the two apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mobileintent_gym.adbd.conventions import NO_USER, NO_USER_NAME, SERVICE
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice

NO_SERVICE = 20  # Android's status for a service that does not exist


class StateService:
    """The ``cmd`` command of the virtual device, serving ``mobileintent`` only.

    Args:
        device: The device; it keeps the content it was built with
            (``VirtualDevice.initial_state``) and the user it belongs to.
    """

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def table(self) -> dict[str, CommandFn]:
        """Command name to implementation."""
        return {"cmd": self.cmd}

    def cmd(self, inv: Invocation) -> Output:
        """``cmd -l`` or ``cmd SERVICE ARGS``."""
        args = inv.argv[1:]
        if args[:1] == ["-l"]:
            return Output(f"Currently running services:\n  {SERVICE}\n".encode())
        if not args or args[0] != SERVICE:
            name = args[0] if args else ""
            message = f"Can't find service: {name}" if name else "No service specified"
            return Output(stderr=f"cmd: {message}\n".encode(), code=NO_SERVICE)
        if args[1:] == ["restore-state"]:
            if self.device.user is None:
                return Output(stderr=f"{SERVICE}: {NO_USER} (serve-adb --user USER)\n"
                              .encode(), code=1)
            self.device.phone.reset(self.device.initial_state)
            self.device.recents.clear()
            return self._user()
        if args[1:] == ["state"]:
            return self._user()
        return Output(stderr=f"{SERVICE}: unknown command {' '.join(args[1:])!r}; use "
                      "restore-state or state\n".encode(), code=1)

    def _user(self) -> Output:
        if self.device.user is None:
            return Output(f"user: {NO_USER_NAME}\n".encode())
        lines = [f"user: {self.device.user}", f"pair: {self.device.pair.summary()}"]
        if self.device.encoder is not None:
            lines.append(f"encoder: {self.device.encoder}")
        return Output("".join(f"{line}\n" for line in lines).encode())
