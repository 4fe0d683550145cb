"""What ``am start`` prints on the virtual device, as Android's activity manager prints it.

Once the intent is read, ``am start`` prints ``Starting: Intent { … }`` (after ``Stopping:
PACKAGE`` with ``-S``) and then tries: a warning or an error it meets goes to standard
error, and its status is 0 either way (a script reads the output, as on a phone). With
``-W`` it waits for the launch and reports it on standard output, its warnings and errors
included, when an activity came to the front::

    Starting: Intent { cmp=com.example.demo/.route.demo.home }
    Status: ok
    LaunchState: COLD
    Activity: com.example.demo/.route.demo.home
    TotalTime: 3
    WaitTime: 3
    Complete

``LaunchState`` is ``COLD`` for an app that had no screens open (not started, stopped,
or left with BACK: the virtual phone keeps no process apart from an app's screens),
``WARM`` for one whose screens were replaced by the activity, ``HOT`` for one brought to
the front as it was (``UNKNOWN (0)`` for the home intent on the home screen, which is only
delivered to it); ``TotalTime`` and ``WaitTime`` are the milliseconds the start took. A
``-S`` that names no activity to stop is ``Error: Intent does not match any activities``,
status 1, before anything is printed or started.
"""

from __future__ import annotations

from dataclasses import dataclass

from mobileintent_gym.adbd.shell import Output

# What am start adds to every intent it starts (Intent.FLAG_ACTIVITY_NEW_TASK).
NEW_TASK = 0x10000000
# Schemes whose address Android shows without its path (Uri.toSafeString).
_PATH_HIDDEN = ("http", "https", "ftp", "rtsp")
# Schemes whose address Android masks (a phone number, a mail address).
_MASKED = ("tel", "sip", "sms", "smsto", "mailto", "nfc")


@dataclass(frozen=True)
class Intent:
    """An intent's fields, as Android writes them in ``Intent { … }``.

    Attributes:
        action: ``act``.
        categories: ``cat``.
        data: ``dat`` (a URI).
        type: ``typ``.
        identifier: ``id``.
        flags: ``flg``.
        package: ``pkg``.
        component: ``cmp``, as written (``PACKAGE/CLASS``).
        extras: Whether it carries extras.
    """

    action: str = ""
    categories: tuple[str, ...] = ()
    data: str = ""
    type: str = ""
    identifier: str = ""
    flags: int = 0
    package: str = ""
    component: str = ""
    extras: bool = False

    @property
    def package_named(self) -> str:
        """The package the intent is for: its component's, else ``pkg``'s."""
        return self.component.partition("/")[0] or self.package

    def __str__(self) -> str:
        fields = [("act", self.action), ("cat", f"[{','.join(self.categories)}]"
                                         if self.categories else ""),
                  ("dat", _safe_uri(self.data)), ("typ", self.type), ("id", self.identifier),
                  ("flg", f"{self.flags:#x}" if self.flags else ""), ("pkg", self.package),
                  ("cmp", short_component(self.component))]
        shown = [f"{name}={value}" for name, value in fields if value]
        return f"Intent {{ {' '.join(shown + ['(has extras)'] * self.extras)} }}"


@dataclass(frozen=True)
class Launch:
    """How one ``am start`` went once its intent was read.

    Attributes:
        intent: The intent, as ``Starting:`` shows it.
        state: ``COLD``, ``WARM``, ``HOT`` or ``UNKNOWN (0)`` (see the module) when an
            activity came to the front, else "".
        activity: The component in front after it, when one came there.
        notes: Android's warning or error lines.
        stopped: The package ``-S`` stopped first, if any.
    """

    intent: Intent
    state: str = ""
    activity: str = ""
    notes: tuple[str, ...] = ()
    stopped: str = ""


def report(launch: Launch, wait: bool, seconds: float) -> Output:
    """What ``am start`` (``-W``: ``wait``) prints of ``launch``, which took ``seconds``."""
    out = [f"Stopping: {launch.stopped}"] if launch.stopped else []
    out.append(f"Starting: {launch.intent}")
    err = []
    (out if wait else err).extend(launch.notes)
    if wait and launch.state:
        ms = round(seconds * 1000)
        out += ["Status: ok", f"LaunchState: {launch.state}", f"Activity: {launch.activity}",
                f"TotalTime: {ms}", f"WaitTime: {ms}", "Complete"]
    return Output(_lines(out), _lines(err), stdout_first=True)


def full_class(component: str) -> str:
    """The class of ``PACKAGE/CLASS`` in full (``.Main`` is ``PACKAGE.Main``)."""
    package, _, name = component.partition("/")
    return package + name if name.startswith(".") else name


def class_name(component: str) -> str:
    """``{PACKAGE/CLASS}`` with the class in full, as Android's errors name a component."""
    return f"{{{component.partition('/')[0]}/{full_class(component)}}}"


def short_component(component: str) -> str:
    """``PACKAGE/CLASS`` as Android's short form writes it.

    A class in the package is written ``PACKAGE/.REST``.
    """
    package, slash, name = component.partition("/")
    if slash and name.startswith(f"{package}."):
        return f"{package}/{name[len(package):]}"
    return component


def _safe_uri(uri: str) -> str:
    """``uri`` as Android shows it in an intent (``Uri.toSafeString``).

    A web address loses its path, a phone number or mail address is masked but for ``-@.``,
    any other loses its fragment.
    """
    scheme, colon, rest = uri.partition(":")
    rest = rest.split("#", 1)[0] if colon else uri.split("#", 1)[0]
    if not colon:
        return rest
    if scheme.lower() in _MASKED:
        return f"{scheme}:{''.join(c if c in '-@.' else 'x' for c in rest)}"
    if scheme.lower() in _PATH_HIDDEN:
        host = rest.removeprefix("//").split("/", 1)[0].split("?", 1)[0]
        return f"{scheme}://{host.rpartition('@')[2]}/..."
    return f"{scheme}:{rest}"


def _lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()
