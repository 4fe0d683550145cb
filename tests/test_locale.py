"""Screens and observations are the same whatever locale the process runs in."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import side_by_side

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = r"""
import json, locale, sys
from datetime import date
locale.setlocale(locale.LC_ALL, sys.argv[1])
import gymnasium as gym
import mobileintent_gym
from mobileintent_gym.phone import SimPhone

predict = gym.make("Act2Intent-Predict-v0", users=["demo-ana"])
obs, _ = predict.reset(seed=0)
phone = SimPhone(540, 1200)
phone.reset(seed=0)
screens = [phone.hierarchy()]
for app in ("pay", "meeting"):
    phone.open(app)
    screens.append(phone.hierarchy())
print(json.dumps({"weekday": date(2026, 3, 4).strftime("%A"), "time": obs["time"],
                  "screens": screens, "frame": phone.screenshot().tobytes().hex()[:4096]}))
"""


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """A German locale built for this test (LOCPATH), or a skip where it cannot be."""
    source = Path("/usr/share/i18n/locales/de_DE")
    if shutil.which("localedef") is None or not source.exists():
        pytest.skip("no localedef or no de_DE locale source (apt-get install locales)")
    folder = tmp_path_factory.mktemp("locales")
    made = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8",
                           str(folder / "de_DE.UTF-8")], capture_output=True, timeout=120)
    if not (folder / "de_DE.UTF-8").exists():
        pytest.skip(f"localedef could not build de_DE.UTF-8: {made.stderr[-300:]!r}")
    return folder


def observed(name: str, locales: Path) -> dict:
    """A process observing under the locale ``name``."""
    return {"args": [sys.executable, "-c", SCRIPT, name],
            "env": {**os.environ, "LOCPATH": str(locales), "PYTHONPATH": str(ROOT)}}


def test_a_host_programs_locale_changes_no_screen_or_observation(german):
    # Day and month names came from strftime's %A/%B: under German, "Mittwoch" in Predict's
    # time, "Spent in März" on Pay's home, and a vector env's sub-envs in the parent and
    # in its workers (which keep the C locale) differed for the same seed.
    plain, local = (json.loads(out.strip().splitlines()[-1]) for out in side_by_side(
        observed("C", german), observed("de_DE.UTF-8", german), timeout=300))
    assert (plain["weekday"], local["weekday"]) == ("Wednesday", "Mittwoch")  # in effect
    assert local["time"] == plain["time"] and plain["time"].split()[2] == "Tuesday,"
    assert local["screens"] == plain["screens"] and local["frame"] == plain["frame"]
    assert any("Spent in March" in screen for screen in plain["screens"])
