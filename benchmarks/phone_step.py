"""Steps per second of the simulated phone, against a from-scratch baseline, in one run.

Workload: a fixed, seeded mix of clicks on visible controls, clicks anywhere, long presses,
swipes, typing and back/home presses across every installed app: the steps are split into
one run per app, started (and restarted whenever the mix reaches the launcher) by tapping
the app's icon. The action list
is recorded once per screen size and replayed in every mode, so each mode walks the same
screens; the share of steps taken inside each app is printed.

Prints (a) hierarchy-only steps/s, (b) full 1080x2400 screenshot steps/s, (c) 540x1200
screenshot steps/s, (d) the baseline that redraws every frame from scratch without caches,
(e) one full-frame memory copy (the physical floor of (b)), reset latency (after opening
an app, as an env resets) and memory.

The speed-up over the baseline is measured on equal terms: the same first steps, once, each
on a new phone, cached against uncached rendering; the cached one starts with the process's
caches of the phone's modules emptied (they fill during the other measurements), as
does the baseline.
"""

from __future__ import annotations

import argparse
import gc
import json
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np

from mobileintent_gym.actions import Action
from mobileintent_gym.apps import registry
from mobileintent_gym.console import positive_int
from mobileintent_gym.phone import (
    SimPhone,
    chrome,
    hierarchy,
    keyboard,
    launcher,
    paint,
    state,
    typeset,
)
from mobileintent_gym.phone.query import find_all
from mobileintent_gym.phone.ui import center

WORDS = ("hello", "Rainy Night", "see you at 7", "ok", "lunch?")


def record(width: int, height: int, steps: int, seed: int = 0) -> list[Action]:
    """A random but fixed action list, chosen by looking at each screen's hierarchy.

    Each installed app gets an equal share of ``steps``: HOME, a tap on its launcher icon,
    then random actions, with a tap on its icon again whenever they reach the launcher.
    """
    rng = np.random.default_rng(seed)
    phone = SimPhone(width, height)
    actions: list[Action] = []
    apps = registry.bundles()
    for i, bundle in enumerate(apps):
        share = steps * (i + 1) // len(apps) - steps * i // len(apps)
        for k in range(share):  # each action is chosen on the screen the last one left
            if k == 0:
                action = Action.press("HOME")
            elif phone.route() == "launcher":  # back to the app whenever the mix left it
                action = _icon(phone, bundle.app.label)
            else:
                action = _random_action(phone, rng)
            phone.act(action)
            actions.append(action)
    return actions


def _icon(phone: SimPhone, label: str) -> Action:
    """A tap on the launcher icon labelled ``label`` (the launcher is on screen)."""
    icon = next(n for n in hierarchy.parse(phone.hierarchy()).walk()
                if n.clickable and n.text == label)
    x1, y1, x2, y2 = icon.bounds
    return Action.click((x1 + x2) // 2, (y1 + y2) // 2)


def _random_action(phone: SimPhone, rng: np.random.Generator) -> Action:
    """One action of the mix, aimed with the current screen's hierarchy."""
    width, height = phone.width, phone.height
    roll = rng.random()
    targets = [n.bounds for n in hierarchy.parse(phone.hierarchy()).walk()
               if n.clickable or n.focusable]
    if roll < 0.5 and targets:
        b = targets[int(rng.integers(len(targets)))]
        action = Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
    elif roll < 0.58:
        action = Action.click(int(rng.integers(width)), int(rng.integers(height)))
    elif roll < 0.63:
        action = Action.long_click(int(rng.integers(width)), int(rng.integers(height)))
    elif roll < 0.78:
        action = Action.swipe(("UP", "UP", "DOWN", "LEFT")[int(rng.integers(4))])
    elif roll < 0.88:
        action = Action.type_text(WORDS[int(rng.integers(len(WORDS)))])
    elif roll < 0.97:
        action = Action.press("BACK")
    else:
        action = Action.press(("HOME", "ENTER")[int(rng.integers(2))])
    return action


def app_shares(actions: list[Action]) -> dict[str, float]:
    """The share of ``actions`` after which the phone shows each app (or the launcher)."""
    phone = SimPhone()
    counts: Counter[str] = Counter()
    for action in actions:
        phone.act(action)
        counts[phone.route().split("/")[0]] += 1
    return {name: count / len(actions) for name, count in counts.most_common()}


def emptied_caches(**options: bool) -> SimPhone:
    """A new phone, the process's caches of the phone's modules emptied first.

    Glyphs, typeset text, bars, keyboards, parsed dumps and dates (the apps' own caches,
    of content and date headings, stay: a cold phone in a process that built content).
    """
    for module in (paint, typeset, chrome, hierarchy, keyboard, state):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
    return SimPhone(**options)


def steps_per_second(phone: SimPhone, actions: list[Action], observe: str,
                     repeats: int = 5) -> float:
    """Best of ``repeats`` replays of ``actions`` (act + observation) on a reset phone.

    The best run is the figure: on the shared virtual machines this runs on, a core is at
    times a third slower for seconds on end, which only ever lowers a run.
    """
    best = float("inf")
    for _ in range(repeats):
        phone.reset(seed=0)
        gc.collect()
        start = time.perf_counter()
        for action in actions:
            phone.act(action)
            phone.hierarchy() if observe == "xml" else phone.screenshot()
        best = min(best, time.perf_counter() - start)
    return len(actions) / best


def copy_per_second(width: int, height: int, repeats: int = 200) -> float:
    """How many full frames one memory copy can move per second."""
    src = np.random.default_rng(0).integers(0, 255, (height, width, 3), dtype=np.uint8)
    dst = np.empty_like(src)
    start = time.perf_counter()
    for _ in range(repeats):
        np.copyto(dst, src)
    return repeats / (time.perf_counter() - start)


def reset_ms(phone: SimPhone, repeats: int = 200) -> dict[str, float]:
    """Milliseconds of ``reset(state)``, and of reset plus the first screenshot after it.

    As an env resets after an episode: each reset follows an untimed tap on a launcher
    icon (the apps on the home page in turn) and a screenshot of the app it opened, so the
    first screenshot after the reset draws the home screen over another app's frame. (A
    reset onto the screen already shown would cost a cache hit.) Median and worst of
    ``repeats``.
    """
    state = phone.state.copy()
    icons = [Action.click(*center(n.bounds))
             for n in find_all(phone.hierarchy(), resource_id=launcher.ICON)]
    alone, with_shot = [], []
    for n in range(repeats):
        if phone.act(icons[n % len(icons)]).route == "launcher":
            raise RuntimeError("a launcher icon opened no app: the reset would be timed "
                               "onto the screen already shown")
        phone.screenshot()
        start = time.perf_counter()
        phone.reset(state)
        reset_done = time.perf_counter()
        phone.screenshot()
        alone.append((reset_done - start) * 1e3)
        with_shot.append((time.perf_counter() - start) * 1e3)
    return {"reset_ms": float(np.median(alone)), "reset_ms_max": max(alone),
            "reset_and_screenshot_ms": float(np.median(with_shot)),
            "reset_and_screenshot_ms_max": max(with_shot)}


def memory_mb(actions: list[Action]) -> float:
    """Peak traced memory of one phone driven through the workload with screenshots."""
    gc.collect()
    tracemalloc.start()
    phone = SimPhone()
    for action in actions:
        phone.act(action)
        phone.screenshot()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    """Run every measurement and print/write the figures."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=positive_int, default=2000,
                        help="steps of the recorded workload, in each mode (default 2000)")
    parser.add_argument("--baseline-steps", type=positive_int, default=200,
                        help="its first steps taken by the uncached baseline and, for the "
                             "speed-up, by the cached phone (default 200; at most --steps)")
    parser.add_argument("--out", type=Path, default=None,
                        help="also write the figures to this JSON file")
    args = parser.parse_args()
    if args.baseline_steps > args.steps:
        parser.error(f"--baseline-steps {args.baseline_steps} is more than --steps "
                     f"{args.steps}: the baseline replays the first of those steps")
    full, small = record(1080, 2400, args.steps), record(540, 1200, args.steps, seed=1)
    figures = {
        "a_hierarchy_steps_per_s": steps_per_second(SimPhone(), full, "xml"),
        "b_screenshot_1080x2400_steps_per_s": steps_per_second(SimPhone(), full, "png"),
        "c_screenshot_540x1200_steps_per_s": steps_per_second(SimPhone(540, 1200), small,
                                                              "png"),
        # Before the baseline empties the process's caches: one phone's own memory, the
        # caches shared by every phone counted only as far as its walk grows them.
        "memory_peak_mb_one_phone": memory_mb(full),
        "d_baseline_no_cache_steps_per_s": steps_per_second(
            emptied_caches(render_cache=False), full[:args.baseline_steps], "png", repeats=1),
        "e_full_frame_copies_per_s": copy_per_second(1080, 2400),
    }
    figures |= reset_ms(SimPhone())
    same = full[:args.baseline_steps]
    figures["b_cold_same_steps_per_s"] = steps_per_second(emptied_caches(), same, "png",
                                                          repeats=1)
    figures["b_cold_over_d_speedup"] = (figures["b_cold_same_steps_per_s"]
                                        / figures["d_baseline_no_cache_steps_per_s"])
    figures["steps"] = args.steps
    for name, value in figures.items():
        print(f"{name:<40} {value:>12.2f}")
    figures["b_share_of_steps_per_app"] = app_shares(full)
    print("share of steps per app:", ", ".join(
        f"{name} {share:.0%}" for name, share in figures["b_share_of_steps_per_app"].items()))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
