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
    with served_over_adb(phone, tmp_path, "demo-ben") as adb:
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


def test_stored_screens_outside_the_run_unreadable_or_thin_are_named_or_drawn(tmp_path):
    # A frame named '../x.png' (or an absolute path) embedded any image the viewer could
    # read; one bad frame dropped every screen of its episode without naming the file; a
    # 1000x1 frame failed the whole report (a thumbnail 0 pixels high).
    from PIL import Image

    from mobileintent_gym.report.page import thumbnail

    run = tmp_path / "run"
    run.mkdir()
    Image.new("RGB", (54, 120), "white").save(run / "0.png")
    Image.new("RGB", (54, 120), "white").save(tmp_path / "secret.png")
    (run / "1.png").write_bytes(Image.new("RGB", (54, 120)).tobytes()[:50])  # no PNG
    source = ScreenSource({"device": "adb:phone"}, run)
    outside = source.screens({"frames": ["0.png", "../secret.png"]})
    assert len(outside.frames) == 1 and "'../secret.png' lies outside" in outside.problem
    broken = source.screens({"frames": ["0.png", "1.png", "0.png"]})
    assert len(broken.frames) == 1 and f"{run / '1.png'}" in broken.problem
    assert thumbnail(np.zeros((1, 1000, 3), np.uint8), 360).size == (360, 1)
