"""A process's memory as Linux's ``/proc`` reports it (benchmarks and harnesses read it).

- resident (RSS): pages in memory, shared libraries and shared memory counted in full;
- peak resident: the highest RSS so far (:func:`reset_peak_memory` restarts it);
- proportional (PSS): each shared page split among the processes mapping it, so the PSS
  of N workers adds up to what they take from the machine.
"""

from __future__ import annotations

from pathlib import Path


def _fields_bytes(path: str, *keys: str) -> list[int]:
    """The ``key:`` lines of a /proc file, in bytes (the kernel writes kB).

    Raises:
        KeyError: When a line is missing (a zombie process has no memory lines).
    """
    lines = dict(line.split(":", 1) for line in Path(path).read_text().splitlines()
                 if ":" in line)
    missing = [key for key in keys if key not in lines]
    if missing:
        raise KeyError(f"{path} has no {', '.join(missing)} line")
    return [int(lines[key].split()[0]) * 1024 for key in keys]


def process_memory(pid: int) -> tuple[int, int]:
    """``(resident bytes now, peak resident bytes)`` of process ``pid``."""
    rss, peak = _fields_bytes(f"/proc/{pid}/status", "VmRSS", "VmHWM")
    return rss, peak


def proportional_memory(pid: int) -> int:
    """Proportional set size of process ``pid`` in bytes (Linux 4.14+)."""
    return _fields_bytes(f"/proc/{pid}/smaps_rollup", "Pss")[0]


def reset_peak_memory(pid: int) -> None:
    """Restart process ``pid``'s peak resident size from its current one (Linux 4.0+)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")
