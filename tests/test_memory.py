import os
import sys

import numpy as np
import pytest

from mobileintent_gym.memory import process_memory, proportional_memory, reset_peak_memory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
MB = 2**20


def test_resident_memory_follows_what_the_process_touches():
    pid = os.getpid()
    before, _ = process_memory(pid)
    block = np.ones(64 * MB, np.uint8)  # 64 MB, every page written
    now, peak = process_memory(pid)
    # The kernel syncs its per-thread counters lazily: compare with a margin.
    assert now - before > 60 * MB and peak > before + 60 * MB
    assert 0 < proportional_memory(pid) <= now  # shared pages count in part
    del block
    after, peak = process_memory(pid)
    assert after < now - 60 * MB and peak > before + 60 * MB  # the peak stays until reset
    reset_peak_memory(pid)
    assert process_memory(pid)[1] < now - 60 * MB


def test_an_unknown_process_is_an_error():
    with pytest.raises(FileNotFoundError):
        process_memory(2**22 + 1)  # above Linux's largest pid
