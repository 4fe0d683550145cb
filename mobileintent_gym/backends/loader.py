"""Build a device from a config string, so environments never branch on device types.

``sim`` (or ``sim:WIDTHxHEIGHT``, 320–3840 × 480–3840 pixels, portrait) is the embedded
simulated phone; ``adb:<serial>`` a device or emulator the local adb server knows
(``adb:127.0.0.1:15555`` for ``mobileintent-gym serve-adb``); ``appium:<url>`` an Appium
server driving a device with UiAutomator2 (``appium:http://127.0.0.1:4723``), which of its
devices and whether to lock it told after a ``?`` as in a URL's query
(``appium:http://127.0.0.1:4723?udid=emulator-5554&exclusive=false``, see
:data:`APPIUM_OPTIONS`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mobileintent_gym.backends.base import Device
from mobileintent_gym.errors import DeviceError

_SIZE = re.compile(r"([0-9]{1,9})x([0-9]{1,9})")
APPIUM_OPTIONS = {"udid": "the device's serial, when the server drives several",
                  "exclusive": "true or false: hold the device lock (see AppiumDevice)"}
"""What an ``appium:`` spec may tell after its URL's ``?``, each once."""
_TRUTH = {"true": True, "false": False}


class DeviceConfigError(DeviceError, ValueError):
    """A device config string that names no known backend; the message quotes it."""


def load_device(spec: str) -> Device:
    """Build the device that ``spec`` names.

    Args:
        spec: ``sim``, ``sim:1080x2400``, ``adb:<serial>`` or ``appium:<url>`` (with
            options after a ``?``: ``appium:<url>?udid=<serial>&exclusive=false``).

    Returns:
        A device satisfying :class:`Device`.

    Raises:
        DeviceConfigError: For an unknown backend or a malformed argument (a screen size
            out of range included).
        DependencyNotInstalled: When the backend's extra is not installed.
    """
    kind, argument = parse_device(spec)
    if kind == "sim":
        from mobileintent_gym.phone import SimPhone

        return SimPhone(*screen_size(argument, spec)) if argument else SimPhone()
    if kind == "adb":
        from mobileintent_gym.backends.adb import AdbDevice

        return AdbDevice(argument)
    from mobileintent_gym.backends.appium import AppiumDevice

    url, options = appium_arguments(argument, spec)
    return AppiumDevice(url, **options)


def parse_device(spec: str) -> tuple[str, str]:
    """The backend (``sim``, ``adb``, ``appium``) and the argument that ``spec`` names.

    It is checked as :func:`load_device` checks it (a sim size's range included), without
    reaching any device.

    Raises:
        DeviceConfigError: As :func:`load_device`, for a spec it would refuse.
    """
    if not isinstance(spec, str):
        raise DeviceConfigError(f"a device config is a text such as 'sim', got {spec!r}")
    kind, colon, argument = spec.strip().partition(":")
    kind, argument = kind.strip(), argument.strip()  # 'adb: SERIAL' named no device
    if kind == "sim":
        if colon:  # 'sim:' names no size
            screen_size(argument, spec)
        return kind, argument
    if kind == "appium" and argument.startswith(("http://", "https://")):
        appium_arguments(argument, spec)
        return kind, argument
    if kind == "adb" and argument:
        return kind, argument
    shown = public_spec(spec)
    if kind == "appium" and argument and "://" not in argument:
        raise DeviceConfigError(f"device {shown!r}: an Appium server is named by its URL; "
                                f"did you mean {public_spec(f'appium:http://{argument}')!r}?")
    raise DeviceConfigError(
        f"unknown device {shown!r}; use 'sim', 'adb:<serial>' or 'appium:<http url>'")


def appium_arguments(argument: str, spec: str) -> tuple[str, dict[str, Any]]:
    """The server URL of an ``appium:`` spec's ``argument`` and its options' values.

    ``http://host:4723?udid=emulator-5554&exclusive=false`` gives the URL before the
    ``?`` and ``{"udid": "emulator-5554", "exclusive": False}``: the keyword arguments of
    :class:`~mobileintent_gym.backends.appium.AppiumDevice`.

    Raises:
        DeviceConfigError: For an option not in :data:`APPIUM_OPTIONS`, one given twice or
            empty, an ``exclusive`` other than ``true`` or ``false``, or a secret that
            :func:`check_url_secret` refuses; the spec is quoted without its URL's secret.
    """
    check_url_secret(argument)
    url, _, query = argument.partition("?")
    _check_address(url, spec)
    options: dict[str, Any] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        where = f"device {public_spec(spec)!r}"
        if key not in APPIUM_OPTIONS:
            known = "; ".join(f"{name}: {what}" for name, what in APPIUM_OPTIONS.items())
            raise DeviceConfigError(f"{where}: unknown option {key!r} (after the URL's '?' "
                                    f"come {known})")
        if key in options or not value:
            raise DeviceConfigError(f"{where}: option {key!r} must be given once, with a "
                                    f"value")
        options[key] = value if key != "exclusive" else _TRUTH.get(value.casefold())
        if options[key] is None:
            raise DeviceConfigError(f"{where}: exclusive must be true or false, got {value!r}")
    return url, options


def _check_address(url: str, spec: str) -> None:
    """Refuse a server URL without a host, or with a port that is none (``:99999``).

    Raises:
        DeviceConfigError: Naming the spec (without its secret) and what is wrong.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError as err:
        raise DeviceConfigError(f"device {public_spec(spec)!r}: the server's address is "
                                f"malformed ({err})") from None
    if not parts.hostname:
        raise DeviceConfigError(f"device {public_spec(spec)!r}: the URL names no host")


def screen_size(text: str, spec: str | None = None) -> tuple[int, int]:
    """``(width, height)`` of a simulated screen written ``WIDTHxHEIGHT`` (ASCII digits).

    Args:
        text: The size, e.g. ``1080x2400``.
        spec: The device string it came from (``sim:100x100``), named in errors; none
            for a size given alone (an option's value: argparse names the option).

    Raises:
        DeviceConfigError: When it is malformed or outside 320–3840 × 480–3840 pixels, or
            not portrait (a height under 1.5 times the width).
    """
    from mobileintent_gym.phone.phone import check_screen_size

    where = "" if spec is None else f"{spec!r}: "
    match = _SIZE.fullmatch(text)
    if match is None:
        raise DeviceConfigError(f"{where}a screen size is written WIDTHxHEIGHT (as "
                                f"1080x2400), got {text!r}")
    width, height = int(match[1]), int(match[2])
    try:
        check_screen_size(width, height)
    except DeviceError as err:
        raise DeviceConfigError(f"{where}{err}") from err
    return width, height


def public_spec(spec: str) -> str:
    """``spec`` as a record or a message shows it: an Appium URL without its secret.

    Its user name and password are hidden also where the URL is malformed or lacks its
    scheme (``appium:user:key@farm``). What is no text comes back as it is, for the
    message that refuses it.
    """
    if not isinstance(spec, str):
        return spec
    kind, _, argument = spec.strip().partition(":")
    if kind.strip().casefold() != "appium":
        return spec
    argument = argument.strip()
    hidden = public_url(argument) if "//" in argument else _LEADING_USER.sub("***@", argument)
    return f"{kind.strip()}:{hidden}"


def public_url(url: str) -> str:
    """``url`` without the user name and password it may hold (``user:key@host``).

    A device farm's URL often holds its access key; runs' records and error messages
    show ``***@host`` in its place. Read as text, not parsed: a URL too malformed to
    parse (an unclosed IPv6 bracket) is shown hidden too, and so is a key holding a raw
    ``/``, ``?`` or ``#`` (see :func:`check_url_secret`), up to the URL's last ``@``.
    """
    return (_RAW_USER if _raw_secret(url) else _USER).sub("***@", url)


def check_url_secret(url: str) -> None:
    """Refuse a URL whose user name or key holds a raw ``/``, ``?`` or ``#``.

    Those end a URL's host part: ``http://alice:ab/cd@farm`` names the host ``alice`` on
    port ``ab``, so a request would fail, and its error would quote part of the key.

    Raises:
        DeviceConfigError: Showing the URL without its secret and how to write it.
    """
    if _raw_secret(url):
        raise DeviceConfigError(
            f"Appium URL {public_url(url)!r}: its user name or key holds a '/', '?' or "
            "'#', which ends the server's address; write them percent-encoded (%2F, %3F, "
            "%23)")


def _raw_secret(url: str) -> bool:
    """Whether ``url``'s host part reads ``name:key`` with the rest of the key after it.

    That is: no ``@`` in it, an ``@`` further on, and after its ``:`` no port number.
    """
    host = _HOST.search(url)
    if host is None or "@" in host[1] or "@" not in url[host.end():]:
        return False
    name, colon, port = host[1].partition(":")
    return bool(colon) and not name.startswith("[") and not port.isdigit()


_HOST = re.compile(r"//([^/?#\s]*)")
"""A URL's host part, user name and password included: from its ``//`` to a ``/?#``."""
_USER = re.compile(r"(?<=//)[^/?#\s]*@")
"""A URL's user name and password: from its ``//`` to the last ``@`` of its host part."""
_RAW_USER = re.compile(r"(?<=//)\S*@")
"""The same where the key holds a raw ``/``, ``?`` or ``#``: to the URL's last ``@``."""
_LEADING_USER = re.compile(r"^[^/?#\s]*@")
"""The same, in a URL written without its scheme."""
