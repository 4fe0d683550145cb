import subprocess
import sys
import textwrap

import pytest

from mobileintent_gym.distributed import heap
from mobileintent_gym.distributed.heap import HeapTrimmer, _malloc_trim

glibc = pytest.mark.skipif(_malloc_trim() is None, reason="the C library has no malloc_trim")

# A fresh interpreter fragments its heap: 60 MB of 1 KB buffers, every fiftieth kept, so the
# freed ones lie below live ones and free() cannot give them back.
FRAGMENTED = textwrap.dedent("""
    import os
    from mobileintent_gym.distributed.heap import HeapTrimmer
    from mobileintent_gym.memory import process_memory

    def rss_mb():
        return process_memory(os.getpid())[0] / 2**20

    buffers = [bytearray(1000) for _ in range(60_000)]
    kept = buffers[::50]
    del buffers
    trim = HeapTrimmer(interval=0.0)
    before = rss_mb()
    trimmed = trim()
    print(before, rss_mb(), trimmed, len(kept))
""")


@glibc
def test_trimming_gives_freed_heap_pages_back():
    out = subprocess.run([sys.executable, "-c", FRAGMENTED], capture_output=True, text=True,
                         check=True).stdout.split()
    before, after, trimmed = float(out[0]), float(out[1]), out[2]
    assert trimmed == "True" and before - after > 30  # of the ~59 MB freed


def test_it_trims_at_most_once_per_interval(monkeypatch):
    calls = []
    trim = HeapTrimmer(interval=60.0)
    monkeypatch.setattr(trim, "_trim", calls.append)  # count calls; trimming itself is above
    assert not trim() and calls == []  # not due until a minute after it was made
    monkeypatch.setattr(trim, "_due", 0.0)
    assert trim() and calls == [0]
    assert not trim() and calls == [0]


@pytest.mark.parametrize("error", [TypeError, OSError, AttributeError])
def test_a_c_library_without_malloc_trim_means_no_trimming(monkeypatch, error):
    # Stands in for Windows (CDLL(None) is a TypeError), musl and macOS, absent here.
    def refuse(name):
        raise error(name)

    monkeypatch.setattr(heap.ctypes, "CDLL", refuse)
    assert heap._malloc_trim() is None and not HeapTrimmer(interval=0.0)()
