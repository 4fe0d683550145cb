import json
import subprocess
import sys
import textwrap
import time

import pytest

from mobileintent_gym.memory import process_memory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

# In a fresh interpreter (a long-lived one may serve the block from pages it already
# holds): touch a 64 MB block, drop it, restart the peak.
TOUCHED = textwrap.dedent("""
    import json, os
    import numpy as np
    from mobileintent_gym.memory import process_memory, proportional_memory, reset_peak_memory

    pid, figures = os.getpid(), {}
    figures["before"] = process_memory(pid)
    block = np.ones(64 << 20, np.uint8)  # every page written
    figures["touched"], figures["pss"] = process_memory(pid), proportional_memory(pid)
    del block
    figures["dropped"] = process_memory(pid)
    reset_peak_memory(pid)
    figures["reset"] = process_memory(pid)
    print(json.dumps(figures))
""")


def test_resident_memory_follows_what_the_process_touches():
    out = subprocess.run([sys.executable, "-c", TOUCHED], capture_output=True, text=True,
                         check=True).stdout
    figures = {k: v if isinstance(v, int) else tuple(v) for k, v in json.loads(out).items()}
    mb, (before, _) = 2**20, figures["before"]
    now, peak = figures["touched"]
    # The kernel syncs its per-thread counters lazily: compare with a margin.
    assert now - before > 60 * mb and peak > before + 60 * mb
    assert 0 < figures["pss"] <= now  # shared pages count in part
    after, peak = figures["dropped"]
    assert after < now - 60 * mb and peak > before + 60 * mb  # the peak stays until reset
    assert figures["reset"][1] < now - 60 * mb


def test_an_unknown_process_is_an_error():
    with pytest.raises(FileNotFoundError):
        process_memory(2**22 + 1)  # above Linux's largest pid


def test_a_zombie_has_no_memory_lines_and_the_error_names_them():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 30
        while "Z" not in state(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # exited but not waited for: a zombie
        with pytest.raises(KeyError, match="VmRSS, VmHWM"):
            process_memory(child.pid)
    finally:
        child.wait()


def state(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(line for line in status if line.startswith("State:"))
