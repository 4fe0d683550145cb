"""The adbd package imports its server and device only when they are asked for."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_exports_are_imported_when_asked_for_and_listed():
    code = (
        "import sys, mobileintent_gym.adbd as adbd\n"
        "before = 'mobileintent_gym.adbd.server' in sys.modules\n"
        "from mobileintent_gym.adbd import *\n"
        "print(before, AdbServer.__module__, VirtualDevice.__module__, ShellLimits.__module__,\n"
        "      set(adbd.__all__) <= set(dir(adbd)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "mobileintent_gym.adbd.server",
                                   "mobileintent_gym.adbd.device",
                                   "mobileintent_gym.adbd.limits", "True"]


def test_a_name_the_package_lacks_is_named():
    import mobileintent_gym.adbd as adbd

    with pytest.raises(AttributeError, match=r"'mobileintent_gym\.adbd' has no attribute 'Nope'"):
        adbd.Nope  # noqa: B018
