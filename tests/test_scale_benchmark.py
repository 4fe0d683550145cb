"""benchmarks/scale.py runs end to end: every figure it reports is there and consistent.

The benchmark once failed in its cold-start worker (it stepped an ended episode) with a
JSON error that hid why, and nothing noticed until a 16-core machine was lent to run it.
This runs it small (two worker counts, a few steps) as a person would, from the command
line; the rates themselves are machine figures and are not asserted.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ("shm", "pool", "independent")


def run_scale(out: Path) -> tuple[dict, list[str]]:
    """The JSON scale.py wrote, and the lines it printed."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "scale.py"), "--workers", "1", "2",
         "--steps", "5", "--repeats", "1", "--modes", *MEASURED, "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout.splitlines()


def test_scale_reports_every_count_and_mode_asked_for(tmp_path):
    figures, printed = run_scale(tmp_path / "scale.json")

    assert figures["workers"] == [1, 2]
    assert figures["cold_start_s"] > 0 and figures["cold_start_rss_mb"] > 0
    assert figures["cold_start_imported_torch"] is False  # a cached user's worker stays lean
    for n in (1, 2):
        count = figures[str(n)]
        baseline = count["baseline_steps_per_s"]
        assert baseline > 0 and count["baseline_drift"] > 0
        for mode in MEASURED:
            rate = count[f"{mode}_steps_per_s"]
            assert rate > 0
            assert math.isclose(count[f"{mode}_vs_baseline"], rate / baseline)
        assert math.isnan(count["sync_steps_per_s"])  # not asked for
        assert len(count["shm_worker_rss_mb"]) == n
        assert all(mb > 0 for mb in count["shm_worker_rss_mb"])
    # Each count's figures are printed as they are measured, before the whole JSON.
    assert [next(iter(json.loads(line))) for line in printed[:2]] == ["1", "2"]
    # (compared as text: the rates of modes not asked for are NaN, never equal to NaN)
    assert json.dumps(json.loads(printed[0])["1"]) == json.dumps(figures["1"])
    with Image.open(tmp_path / "scale.png") as plot:
        assert plot.size == (800, 500)
