"""A run on a device whose screens cannot be re-rendered stores them, and the report uses them.

The device is the virtual adb device behind the real adb binary, as a real phone would be.
"""

import json

import numpy as np

from mobileintent_gym.cli import main
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.report import ScreenSource
from mobileintent_gym.results import read_run
from mobileintent_gym.users import load_user_content
from tests.helpers import served_over_adb

TASKS = ("G-WCT-02:common:explicit", "G-SPT-03:personal:implicit")


def test_screens_are_stored_beside_the_results_and_shown(tmp_path, monkeypatch):
    phone = SimPhone(540, 1200)
    phone.reset(load_user_content("demo-ben").state)
    out = tmp_path / "run.json"
    with served_over_adb(phone, 15043, tmp_path, "demo-ben") as adb:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(adb.server_port))
        assert main(["evaluate", "--device", f"adb:{adb.serial}", "--device-has-state",
                     "--users", "demo-ben", "--tasks", *TASKS, "--out", str(out),
                     "--html"]) == 0
    run = read_run(out)
    assert [e["success"] for e in run.episodes] == [True, True]
    for episode in run.episodes:
        assert len(episode["frames"]) == len(episode["steps"]) + 1
        assert all((tmp_path / name).is_file() for name in episode["frames"])
    stored = ScreenSource(run.provenance, tmp_path)
    replayed = ScreenSource({**run.provenance, "device": "sim"})  # same phone, simulated
    for episode in run.episodes:
        kept, again = stored.screens(episode), replayed.screens(episode)
        assert kept.problem is None and again.problem is None
        assert all(np.array_equal(a, b) for a, b in zip(kept.frames, again.frames, strict=True))
    html = out.with_suffix(".html").read_text()
    frames = json.loads(html.split('id="frames">')[1].split("</script>")[0])
    assert len(frames) >= 4 and all(v.startswith("data:image/jpeg;base64,") for v in
                                    frames.values())
    assert "no screens were stored" not in html
