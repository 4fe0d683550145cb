"""Per-action latency through adb vs a direct SimPhone step, and screenshots/s over adb.

Serves a SimPhone on the virtual adb device, connects the real adb binary (a private adb
server on --server-port) and drives it with AdbDevice (adbutils), in the same run as the
direct phone. Needs `adb` on PATH and adbutils. Reported, as median/p90 milliseconds:

* ``direct_step`` — ``SimPhone.act`` in-process;
* ``adb_act_observed`` — ``AdbDevice.act`` as configured by default: the action, a route
  read before and after, and a ``uiautomator dump`` after it (the one before is the last
  action's), parsed for the element hit and the visible entities (four adb commands);
* ``adb_act_routes_only`` — ``AdbDevice.act`` with ``AdbConfig(observe=False)``: the action
  and the two route reads (three adb commands);
* ``adb_route_read`` — ``AdbDevice.route()``: one ``dumpsys window`` round trip;
* ``adb_hierarchy_read`` — ``AdbDevice.hierarchy()``: one ``uiautomator dump`` and ``cat``;
* ``adbutils_shell`` — the same kind of command through adbutils' own ``shell()``, which
  adds a server-version probe and a 10 ms sleep on closing each of its two connections;
* ``direct_screenshot_after_action`` — ``SimPhone.screenshot()`` of a screen an action just
  changed (the frame drawn again where it changed), timed alone;
* ``adb_screenshot_after_action`` — ``AdbDevice.screenshot()`` of a screen an action just
  changed (drawing, PNG encode, transfer, decode), timed alone;
* ``adb_screenshots_per_s_unchanged`` — repeated screenshots of one screen (the virtual
  device reuses the encoding of an unchanged frame; transfer and decode remain).

    python benchmarks/adb_roundtrip.py --steps 40 --shots 20 --out out/adb_roundtrip.json
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import time
from pathlib import Path

import adbutils

from mobileintent_gym.actions import Action
from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.backends.adb import AdbConfig, AdbDevice
from mobileintent_gym.console import positive_int
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.hierarchy import parse


def fresh_phone() -> SimPhone:
    phone = SimPhone()
    phone.reset(seed=0)
    return phone


def music_icon(phone: SimPhone) -> Action:
    node = next(n for n in parse(phone.hierarchy()).walk() if "Music" in (n.text, n.desc))
    x1, y1, x2, y2 = node.bounds
    return Action.click((x1 + x2) // 2, (y1 + y2) // 2)


def timed(step, count: int) -> list[float]:
    out = []
    for index in range(count):
        start = time.perf_counter()
        step(index)
        out.append((time.perf_counter() - start) * 1000)
    return out


def after_each_action(device: SimPhone | AdbDevice, actions: list[Action],
                      count: int) -> list[float]:
    """Milliseconds of ``count`` screenshots, each of a screen an (untimed) action changed."""
    out = []
    for i in range(count):
        device.act(actions[i % 2])
        out.extend(timed(lambda _: device.screenshot(), 1))
    return out


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(ordered), 3),
            "p90_ms": round(ordered[math.ceil(0.9 * len(ordered)) - 1], 3),  # nearest rank
            "n": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=positive_int, default=40,
                        help="timed actions and reads of each kind (default 40)")
    parser.add_argument("--shots", type=positive_int, default=20,
                        help="timed screenshots of each kind (default 20)")
    parser.add_argument("--server-port", type=int, default=15039,
                        help="port of the private adb server (default 15039)")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    if shutil.which("adb") is None:
        raise SystemExit("adb is not installed (apt-get install adb)")

    direct = fresh_phone()
    actions = [music_icon(direct), Action.press("BACK")]
    direct_ms = timed(lambda i: direct.act(actions[i % 2]), args.steps)
    direct_shot_ms = after_each_action(direct, actions, args.shots)

    with LocalAdb(fresh_phone(), "adb", args.server_port) as local:
        if local.connect() != "device":
            raise SystemExit("the virtual device did not come online")
        device = AdbDevice(AdbConfig(local.serial, server_port=args.server_port))
        device.reset()
        observed_ms = timed(lambda i: device.act(actions[i % 2]), args.steps)
        route_ms = timed(lambda i: device.route(), args.steps)
        dump_ms = timed(lambda i: device.hierarchy(), args.steps)
        library = adbutils.AdbClient("127.0.0.1", args.server_port).device(local.serial)
        library_ms = timed(lambda i: library.shell("dumpsys window windows"), args.steps)
        fresh_ms = after_each_action(device, actions, args.shots)
        start = time.perf_counter()
        for _ in range(args.shots):
            device.screenshot()
        shots_per_s = args.shots / (time.perf_counter() - start)
        device.close()  # one env drives a device at a time: the next one waits for this
        plain = AdbDevice(AdbConfig(local.serial, server_port=args.server_port, observe=False))
        plain.reset()
        plain_ms = timed(lambda i: plain.act(actions[i % 2]), args.steps)
        plain.close()

    result = {
        "direct_step": summary(direct_ms),
        "adb_act_observed": summary(observed_ms),
        "adb_act_routes_only": summary(plain_ms),
        "adb_route_read": summary(route_ms),
        "adb_hierarchy_read": summary(dump_ms),
        "adbutils_shell": summary(library_ms),
        "direct_screenshot_after_action": summary(direct_shot_ms),
        "adb_screenshot_after_action": summary(fresh_ms),
        "adb_screenshots_per_s_unchanged": round(shots_per_s, 2),
    }
    for name, value in result.items():
        print(f"{name:31s} {value}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
