"""Hostile clients against the virtual adb device: memory, a bystander's latency, survival.

Starts ``mobileintent-gym serve-adb`` in a child process (or attacks one already running:
``--port`` with ``--pid``), then replays, one after another, the attacks a hostile client
can make, while a probe client (in a process of its own) runs ``echo ok`` every 20 ms:

* ``cat_forty`` / ``cat_two_hundred`` — one 428-byte line: ``cat`` of a pushed 32 MiB file
  40 (200) times;
* ``cat_in_sequence`` — ``cat F; cat F; ...`` 40 times: what fits the output limit is
  streamed, then the line stops;
* ``grep_backtracking`` — ``echo aaa…a! | grep -E '^(a+)+$'`` (30 a's; Python's regex
  engine would need minutes);
* ``parallel_pushes`` — four 200 MB pushes at once against 256 MiB of storage;
* ``unread_pulls`` — four connections, each pulling the 32 MiB file on 64 sync streams at
  once and reading none of them;
* ``many_connections`` — the same from 24 connections, more than the server serves at once
  (``--max-connections``, 16): those past it are refused, and so is the probe while they
  are held;
* ``input_overflow`` — ``input tap 1e999 5`` and ``input swipe 1 1 2 2 1e999``.

For each: the attack's exit code and first words, its duration, the server's peak resident
memory during it (and as a ratio to its resident memory before the attacks), and the
probe's worst latency (and as a ratio to its worst while nothing else ran). At the end: the
server still answers. The client speaks the adb protocol itself (no adb binary needed).
Linux only (memory from /proc).

    python benchmarks/adbd_stress.py --out out/adbd_stress.json
    python benchmarks/adbd_stress.py --port 15555 --pid "$(pgrep -f 'serve-adb --port 15555')"
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import threading
import time
from contextlib import ExitStack
from multiprocessing.connection import Connection
from pathlib import Path

from mobileintent_gym.adbd.client import ClientError, RawAdb, unread_pulls
from mobileintent_gym.adbd.harness import ServeProcess
from mobileintent_gym.adbd.limits import MIB
from mobileintent_gym.console import Repeated
from mobileintent_gym.memory import process_memory, reset_peak_memory

FILE = "/sdcard/big.bin"


def probe_loop(port: int, interval: float, conn: Connection) -> None:
    """In its own process: ``echo ok`` every ``interval`` s; on request, the latencies so far."""
    client = RawAdb(port, timeout=120)
    samples: list[tuple[float, bool]] = []
    while True:
        if conn.poll(interval):
            if conn.recv() == "stop":
                return
            conn.send(samples)
            samples = []
            continue
        started = time.perf_counter()
        try:
            answered = client.shell("echo ok").stdout == b"ok\n"
        except (ClientError, OSError, EOFError):  # refused, or a server that died
            answered = False
        samples.append((time.perf_counter() - started, answered))


class Probe:
    """A bystander client in a process of its own (so that the attackers' work in this one
    never delays it), probing every 20 ms."""

    def __init__(self, port: int, interval: float = 0.02) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=probe_loop, args=(port, interval, child),
                                         daemon=True)
        self._process.start()

    def take(self) -> list[tuple[float, bool]]:
        """The ``(seconds, answered)`` of the probes since the last call."""
        self._conn.send("take")
        return self._conn.recv()

    def stop(self) -> None:
        """End the probe process."""
        self._conn.send("stop")
        self._process.join(10)


def phase(pid: int, probe: Probe, attack, least: float = 0.5) -> dict:
    """Run ``attack`` (probing for at least ``least`` s): its result, time, memory, probes.

    ``rss_start_mb`` is the server's memory as the attack began: what an earlier attack
    left (the allocator keeps memory freed) is in the peak too, so the attack's own part
    is ``peak_rss_mb`` less that.
    """
    probe.take()
    start = process_memory(pid)[0]
    reset_peak_memory(pid)
    started = time.perf_counter()
    outcome = attack()
    seconds = time.perf_counter() - started
    time.sleep(max(least - seconds, 0))
    samples = probe.take()
    return {"outcome": outcome, "seconds": round(seconds, 3),
            "rss_start_mb": round(start / 1e6, 1),
            "peak_rss_mb": round(process_memory(pid)[1] / 1e6, 1),
            "probe_worst_ms": round(max((s for s, _ in samples), default=0) * 1000, 2),
            "probes": len(samples), "probe_failures": sum(not ok for _, ok in samples)}


def shell_outcome(client: RawAdb, command: str) -> str:
    try:
        answer = client.shell(command)
    except (ClientError, OSError) as err:  # a server that fails the command, or dies
        return f"no answer: {err}"
    said = (answer.stderr or answer.stdout)[:70].decode(errors="replace").strip()
    return f"exit {answer.code}, {len(answer.stdout)} bytes out: {said}"


def attacks(client: RawAdb | None, port: int) -> dict:
    """Name to a function carrying out that attack (nothing runs until it is called)."""
    def pushes() -> str:
        blob = bytes(200 * 10**6)
        answers: list[str] = []
        threads = [threading.Thread(target=lambda n=n: answers.append(
            RawAdb(port, timeout=120).push(blob, f"/sdcard/p{n}.bin") or "pushed"))
            for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        client.shell("rm -f /sdcard/p0.bin /sdcard/p1.bin /sdcard/p2.bin /sdcard/p3.bin")
        return "; ".join(sorted(answer[-40:] for answer in answers))

    def pulls(connections: int) -> str:
        wires, refused = [], 0
        for _ in range(connections):
            try:
                wires.append(unread_pulls(port, FILE))
            except (ClientError, OSError, EOFError):
                refused += 1
        time.sleep(1)  # the streams write what they may, then wait for OKAYs
        for wire in wires:
            wire.close()
        return f"{connections} connections x 64 pulls, none read; {refused} refused"

    return {
        "cat_forty": lambda: shell_outcome(client, "cat" + f" {FILE}" * 40),
        "cat_two_hundred": lambda: shell_outcome(client, "cat" + f" {FILE}" * 200),
        "cat_in_sequence": lambda: shell_outcome(client, "; ".join([f"cat {FILE}"] * 40)),
        "grep_backtracking": lambda: shell_outcome(
            client, "echo " + "a" * 30 + "! | grep -E '^(a+)+$'"),
        "parallel_pushes": pushes,
        "unread_pulls": lambda: pulls(4),
        "many_connections": lambda: pulls(24),
        "input_overflow": lambda: " / ".join(shell_outcome(client, line) for line in (
            "input tap 1e999 5", "input swipe 1 1 2 2 1e999")),
    }


def run(port: int, pid: int, chosen: list[str] | None = None) -> dict:
    """Measure the baseline, replay the attacks (``chosen``, default all), check it serves."""
    client = RawAdb(port, timeout=120)
    client.shell("screencap -p > /sdcard/warm.png; uiautomator dump")  # warm the phone up
    refused = client.push(bytes(range(256)) * (32 * MIB // 256), FILE)
    assert not refused, refused
    probe = Probe(port)
    try:
        idle = phase(pid, probe, lambda: time.sleep(3) or "idle")
        rss_before = process_memory(pid)[0]
        report = {"baseline": {**idle, "rss_mb": round(rss_before / 1e6, 1)}}
        for name, attack in attacks(client, port).items():
            if chosen and name not in chosen:
                continue
            result = phase(pid, probe, attack)
            result["peak_rss_ratio"] = round(result["peak_rss_mb"] * 1e6 / rss_before, 2)
            result["probe_worst_ratio"] = round(
                result["probe_worst_ms"] / max(idle["probe_worst_ms"], 0.001), 1)
            report[name] = result
    finally:
        probe.stop()
    report["after"] = {"serves": client.shell("echo ok").stdout == b"ok\n",
                       "rss_mb": round(process_memory(pid)[0] / 1e6, 1)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, help="attack a server already listening here")
    parser.add_argument("--pid", type=int, help="that server's process id (for its memory)")
    parser.add_argument("--attacks", nargs="+", action=Repeated, choices=list(attacks(None, 0)),
                        help="replay only these attacks (default: all, in the order above)")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()
    if (args.port is None) != (args.pid is None):
        parser.error("--port and --pid go together")
    with ExitStack() as stack:
        port, pid = args.port, args.pid
        if port is None:
            served = stack.enter_context(ServeProcess())
            port, pid = served.port, served.pid
        report = run(port, pid, args.attacks)
    for name, figures in report.items():
        print(f"{name:<18} " + "  ".join(f"{k}={v}" for k, v in figures.items()))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
