"""benchmarks/scale.py runs end to end: every figure it reports is there and consistent.

The benchmark once failed in its cold-start worker (it stepped an ended episode) with a
JSON error that hid why, and nothing noticed until a 16-core machine was lent to run it.
This runs it small (two worker counts, a few steps) as a person would, from the command
line; the rates themselves are machine figures and are not asserted.
"""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.envs.vector_gather import default_threads

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ("shm", "pool", "shm_in_parent", "independent")
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the workers' RSS is read from /proc")


def load_scale():
    """benchmarks/scale.py as a module (it imports from its own folder)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("scale", ROOT / "benchmarks" / "scale.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


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
    assert figures["gather_threads"] == default_threads()  # what the pool modes copied with
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


def label_columns(path: Path) -> list[float]:
    """The x centre of each worker-count label under the plot's axis, left to right."""
    with Image.open(path) as image:
        row = np.asarray(image.convert("L"))[448:462].min(axis=0) < 128
    columns = np.flatnonzero(row)
    groups = np.split(columns, np.flatnonzero(np.diff(columns) > 3) + 1)
    return [float(group.mean()) for group in groups]


def test_the_plot_puts_worker_counts_on_a_log2_axis_whatever_their_order(tmp_path):
    scale = load_scale()
    rates = {f"{mode}_steps_per_s": float("nan") for mode in scale.MODES}

    def figures(counts):
        return {"workers": counts, **{str(n): {**rates, "baseline_steps_per_s": 100.0,
                                                "shm_steps_per_s": 80.0 * n} for n in counts}}

    scale.plot(figures([1, 2, 16]), tmp_path / "sorted.png")
    scale.plot(figures([16, 1, 2]), tmp_path / "unsorted.png")
    one, two, sixteen = label_columns(tmp_path / "sorted.png")
    # 2 is a quarter of the way from 1 to 16 on a log2 axis (a fifteenth on a linear one,
    # half on one spaced by position)
    assert (two - one) / (sixteen - one) == pytest.approx(0.25, abs=0.02)
    with Image.open(tmp_path / "sorted.png") as a, Image.open(tmp_path / "unsorted.png") as b:
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_ray_is_not_drawn_beside_the_baselines_workload(tmp_path):
    # Its random-agent episodes are another workload: drawn (and divided by the baseline)
    # beside the others, its 0.08x read as Ray's cost.
    scale = load_scale()
    rates = {f"{mode}_steps_per_s": float("nan") for mode in scale.MODES}
    figures = {"workers": [1, 2], **{str(n): {**rates, "baseline_steps_per_s": 100.0,
                                              "shm_steps_per_s": 80.0 * n} for n in (1, 2)}}
    scale.plot(figures, tmp_path / "without.png")
    for n in (1, 2):
        figures[str(n)]["ray_steps_per_s"] = 5000.0 * n
    scale.plot(figures, tmp_path / "with.png")
    with Image.open(tmp_path / "without.png") as a, Image.open(tmp_path / "with.png") as b:
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert "ray" in scale.MODES and "ray" not in scale.SAME_WORK


def test_the_cold_start_report_is_read_however_soon_it_follows_ready(monkeypatch):
    scale = load_scale()
    # Both lines at once: "ready"'s read may buffer the report with it.
    line = json.dumps({"rss_mb": 1, "torch": False})
    monkeypatch.setattr(scale, "WORKER", f"print('ready')\nprint({line!r})")
    report = scale.cold_start()
    assert report["rss_mb"] == 1 and report["torch"] is False and report["seconds"] > 0
    monkeypatch.setattr(scale, "WORKER", "import sys\nsys.exit(3)")
    with pytest.raises(SystemExit, match="exit code 3"):
        scale.cold_start()


def test_cold_starts_read_bytecode_an_untimed_start_wrote_even_where_writing_is_off(
        monkeypatch):
    # With PYTHONDONTWRITEBYTECODE set (as in some sandboxes) every start compiled every
    # module: 0.1-0.2 s that an installed package never pays.
    scale = load_scale()
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    # Each start says whether a module's bytecode was there before it imported it: only
    # an earlier start (the untimed one, for the first timed start) can have written it.
    monkeypatch.setattr(scale, "WORKER", (
        "import importlib.util, json, os, sys\n"
        "spec = importlib.util.find_spec('email.mime.text')\n"
        "cached = os.path.exists(importlib.util.cache_from_source(spec.origin))\n"
        "import email.mime.text\n"
        "print('ready')\n"
        "print(json.dumps({'rss_mb': 1, 'torch': False, 'prefix': sys.pycache_prefix,\n"
        "                  'writes': not sys.dont_write_bytecode, 'cached': cached}))"))
    starts = scale.cold_starts(2)
    assert len(starts) == 2 and all(s["writes"] and s["cached"] for s in starts)
    assert starts[0]["prefix"] == starts[1]["prefix"]
    assert not Path(starts[0]["prefix"]).exists()  # the folder goes with the run
