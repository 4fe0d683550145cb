"""Same state, seed and actions give byte-identical frames and hierarchies in two processes."""

import json
import os
import sys

import numpy as np

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import SimPhone, chrome
from mobileintent_gym.phone.lru import LRU
from tests.helpers import side_by_side

SCRIPT = """
import hashlib, json, random, sys
import numpy as np
# Each process disturbs the global generators differently: the phone must not read them.
random.seed(int(sys.argv[2]))
np.random.seed(int(sys.argv[2]))
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.tour import plan
seed = int(sys.argv[1])
phone = SimPhone()
phone.reset(seed=seed)
digest = hashlib.sha256()
extra = ["PRESS[HOME]", "CLICK[182,800]", "SWIPE[UP]", "CLICK[540,1200]", "TYPE[é 中 \\t]",
         "LONG_CLICK[540,700]", "PRESS[BACK]", "CLICK[900,2264]", "CLICK[540,503]"]
for step in [s for _, s in plan(phone.apps.values())] + [lambda xml, a=a: a for a in extra]:
    phone.act(step(phone.hierarchy()))
    digest.update(phone.screenshot().tobytes())
    digest.update(phone.hierarchy().encode())
print(json.dumps({"digest": digest.hexdigest(), "routes": [e.route_after for e in phone.events]}))
"""


def run(seed, noise):
    """A process stepping the phone with ``seed``, its global generators seeded ``noise``."""
    return {"args": [sys.executable, "-c", SCRIPT, str(seed), str(noise)],
            "env": {**os.environ, "PYTHONHASHSEED": str(noise)}}


def test_two_processes_give_identical_frames_and_hierarchies():
    first, second, other = map(json.loads, side_by_side(run(7, 1), run(7, 2), run(8, 1),
                                                        timeout=300))
    assert first == second
    assert len(set(first["routes"])) > 8
    assert other["digest"] != first["digest"]  # the seed reaches the content


def fresh_view(phone):
    """The current view built with empty layer caches (nothing reused)."""
    kept, phone._layers = phone._layers, LRU(1)
    try:
        return chrome.build_view(phone)
    finally:
        phone._layers = kept


def test_cached_frames_and_views_equal_uncached_ones_over_a_random_walk():
    """Every cache (views, tiles, damage, frame reuse) against a phone that caches no
    frame, and each cached view against one built afresh, over seeded random steps that
    cross apps, dialogs, the keyboard and the clock."""
    rng = np.random.default_rng(11)
    cached, plain = SimPhone(), SimPhone(render_cache=False)
    cached.reset()  # loaded: _current() reads the state
    words = ("hi", "Rainy Night", "ok")
    for _ in range(150):
        roll = rng.random()
        targets = cached._current().targets
        if roll < 0.55 and targets:
            b = targets[int(rng.integers(len(targets)))].bounds
            action = Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
        elif roll < 0.7:
            action = Action.swipe(("UP", "DOWN")[int(rng.integers(2))])
        elif roll < 0.8:
            action = Action.type_text(words[int(rng.integers(3))])
        else:
            action = Action.press(("BACK", "BACK", "HOME", "ENTER")[int(rng.integers(4))])
        cached.act(action)
        plain.act(action)
        assert cached.hierarchy() == fresh_view(cached).xml()
        assert np.array_equal(cached.screenshot(), plain.screenshot())
    assert len({e.route_after for e in cached.events}) > 6
