"""A process's memory as Linux's ``/proc`` reports it (benchmarks and harnesses read it).

- resident (RSS): pages in memory, shared libraries and shared memory counted in full;
- peak resident: the highest RSS so far (:func:`reset_peak_memory` restarts it);
- proportional (PSS): each shared page split among the processes mapping it, so the PSS
  of N workers adds up to what they take from the machine.
"""

from __future__ import annotations

from pathlib import Path


def _field_bytes(path: str, key: str) -> int:
    """The ``key:`` line of a /proc file, in bytes (the kernel writes kB)."""
    for line in Path(path).read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) * 1024
    raise KeyError(f"{path} has no {key!r} line")


def process_memory(pid: int) -> tuple[int, int]:
    """``(resident bytes now, peak resident bytes)`` of process ``pid``."""
    return (_field_bytes(f"/proc/{pid}/status", "VmRSS"),
            _field_bytes(f"/proc/{pid}/status", "VmHWM"))


def proportional_memory(pid: int) -> int:
    """Proportional set size of process ``pid`` in bytes (Linux 4.14+)."""
    return _field_bytes(f"/proc/{pid}/smaps_rollup", "Pss")


def reset_peak_memory(pid: int) -> None:
    """Restart process ``pid``'s peak resident size from its current one (Linux 4.0+)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
