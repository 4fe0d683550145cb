"""The benchmarks ``make bench`` runs work end to end, run small as a person would.

``adb_roundtrip.py`` failed on its defaults for weeks (a second device opened on the
serial the first still held) without anything noticing. Their rates are machine figures
and are not asserted; what is asserted is that every figure is there and counts what it
says.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from mobileintent_gym.phone import SimPhone
from tests.helpers import free_port

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_benchmark(name: str, *args: str) -> dict:
    """The JSON figures ``benchmarks/<name>`` wrote with ``args`` and ``--out``."""
    out = Path(args[-1])
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.skipif(shutil.which("adb") is None, reason="adb is not installed")
def test_adb_roundtrip_reports_each_measure_over_the_counts_asked_for(tmp_path):
    figures = run_benchmark("adb_roundtrip.py", "--steps", "6", "--shots", "3",
                            "--server-port", str(free_port()), "--out", str(tmp_path / "adb.json"))

    per_step = ("direct_step", "adb_act_observed", "adb_act_routes_only", "adb_route_read",
                "adb_hierarchy_read", "adbutils_shell")
    per_shot = ("direct_screenshot_after_action", "adb_screenshot_after_action")
    assert {name: figures[name]["n"] for name in per_step + per_shot} == {
        **dict.fromkeys(per_step, 6), **dict.fromkeys(per_shot, 3)}
    assert all(figures[n]["median_ms"] > 0 for n in per_step + per_shot)
    assert figures["adb_screenshots_per_s_unchanged"] > 0


def test_phone_step_reports_its_figures(tmp_path):
    figures = run_benchmark("phone_step.py", "--steps", "40", "--baseline-steps", "10",
                            "--out", str(tmp_path / "phone.json"))

    assert figures["steps"] == 40
    assert all(figures[name] > 0 for name in ("reset_ms", "reset_ms_max",
                                               "reset_and_screenshot_ms",
                                               "reset_and_screenshot_ms_max"))
    assert abs(sum(figures["b_share_of_steps_per_app"].values()) - 1) < 1e-9


class _Watched(SimPhone):
    """A phone that notes the screen each reset leaves."""

    def __init__(self) -> None:
        super().__init__()
        self.left: list[str] = []

    def reset(self, state=None, seed=None) -> None:
        self.left.append(self.route())
        super().reset(state, seed)


def test_each_timed_reset_leaves_an_app_for_the_home_screen():
    # The resets were timed onto the screen already shown (most untimed steps before them
    # left the home screen as it was): a cache hit, 0.03 ms for what costs 0.7-0.9 ms.
    phone_step = load_benchmark("phone_step")
    phone = _Watched()
    figures = phone_step.reset_ms(phone, repeats=12)
    apps = {label.split("/")[0] for label in phone.left}
    assert "launcher" not in apps and len(apps) == 10  # each app of the home page in turn
    assert len(phone.left) == 12 and set(figures) == {
        "reset_ms", "reset_ms_max", "reset_and_screenshot_ms", "reset_and_screenshot_ms_max"}


def test_text_codec_reads_back_what_it_writes_both_ways():
    # The script asserts that both reads give the hierarchy it wrote before timing them.
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "text_codec.py"),
                           "--number", "1", "--rounds", "1"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert figures["characters"] > 1000
    assert all(figures[name] > 0 for name in ("write_ms", "write_per_char_ms", "read_ms",
                                               "read_per_char_ms"))


COUNTS = {"adb_roundtrip.py": "--steps", "adbd_stress.py": None, "cold_cache.py": "--workers",
          "element_slots.py": "--slots", "env_step.py": "--repeats",
          "evaluate_record.py": "--repeats", "generate.py": "--days",
          "intent_baselines.py": "--episodes", "lm_throughput.py": "--prompts",
          "phone_step.py": "--steps", "ppo_curriculum.py": "--steps",
          "proactive_baselines.py": "--episodes", "scale.py": "--workers",
          "text_codec.py": "--number", "vector_info.py": "--envs",
          "vector_parent.py": "--workers", "wake_penalty.py": "--rounds"}


def test_every_benchmark_is_listed_here():
    assert sorted(COUNTS) == sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))


def unexplained(shown: str) -> list[str]:
    """The options argparse's ``--help`` output ``shown`` lists without a help text."""
    lines = [*shown.split("options:\n", 1)[1].splitlines(), ""]
    return [line.split()[0] for line, after in itertools.pairwise(lines)
            if line.startswith("  -") and not re.search(r"\S {2,}\S", line)
            and not (after.startswith("    ") and not after.lstrip().startswith("-"))]


def test_unexplained_finds_an_option_without_help():
    parser = argparse.ArgumentParser()
    parser.add_argument("--a-long-option-name", help="said on the next line")
    parser.add_argument("--steps", type=int, help="said on its line")
    parser.add_argument("--bare")
    parser.add_argument("--last")
    assert unexplained(parser.format_help()) == ["--bare", "--last"]


@pytest.mark.parametrize("script", sorted(COUNTS))
def test_every_benchmark_parses_its_arguments_and_refuses_a_count_of_none(script):
    # wake_penalty.py failed at import after a helper it imported was renamed; counts of 0
    # or below ended in ZeroDivisionError, min() of nothing, or negative figures. Fifteen
    # scripts listed 39 options with no word of what they do.
    path = str(ROOT / "benchmarks" / script)
    helped = subprocess.run([sys.executable, path, "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert helped.returncode == 0 and "usage:" in helped.stdout, helped.stderr[-2000:]
    assert unexplained(helped.stdout) == []
    if COUNTS[script] is None:  # no count to give
        return
    refused = subprocess.run([sys.executable, path, COUNTS[script], "0"], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert COUNTS[script] in refused.stderr and "at least 1" in refused.stderr


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux CPU affinity")
def test_generate_names_a_core_the_machine_lacks():
    # --core 7 on a 2-core machine was an OSError traceback (Invalid argument).
    core = max(os.sched_getaffinity(0)) + 1
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "--core",
                           str(core)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and f"--core {core} is none of this process's CPUs" in done.stderr
