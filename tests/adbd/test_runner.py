"""Command lines off the event loop: relaying output, the loop's own time guard, fair shares.

The device here is a stand-in whose command lines block until told to finish. No real
command can do that (each checks its time limit, and grep's matching is killed), which is
exactly why the runner's guard against a worker that overstays is tested with one.
"""

import asyncio
import math
import threading

import pytest

from mobileintent_gym.adbd.limits import ShellLimits
from mobileintent_gym.adbd.runner import CommandRunner, OutputDropped
from mobileintent_gym.adbd.shell import ShellResult


class BlockingDevice:
    """Runs command lines that emit their name, then block until released."""

    def __init__(self, time_limit: float = 10.0) -> None:
        self.limits = ShellLimits(time_limit=time_limit)
        self.release = threading.Event()
        self.dropped = threading.Event()
        self.started: list[str] = []

    def run(self, command_line: str, stdin: bytes = b"", emit=None,
            started: float | None = None) -> ShellResult:
        self.started.append(command_line)
        emit(1, command_line.encode())
        if command_line.startswith("block"):
            self.release.wait(10)
        try:
            emit(1, b" done")
        except OutputDropped:
            self.dropped.set()
            raise
        return ShellResult(code=3)


def collect():
    sent: list[tuple[int, bytes]] = []

    async def send(fd: int, data: bytes) -> None:
        sent.append((fd, data))

    return sent, send


def ran(device, command_line: str) -> tuple[int, list[tuple[int, bytes]]]:
    """The exit code and the output sent of one command line run on ``device``."""
    async def scenario():
        runner = CommandRunner(device)
        sent, send = collect()
        code = (await runner.session().run(command_line, send)).code
        runner.close()
        return code, sent

    return asyncio.run(scenario())


def test_output_is_relayed_in_order_with_the_exit_code():
    assert ran(BlockingDevice(), "quick") == (3, [(1, b"quick"), (1, b" done")])


def test_a_worker_that_overstays_is_answered_for_and_its_later_output_dropped():
    device = BlockingDevice(time_limit=0.1)

    async def scenario():
        runner = CommandRunner(device)
        sent, send = collect()
        code = (await runner.session().run("block", send)).code
        device.release.set()
        await asyncio.get_running_loop().run_in_executor(None, device.dropped.wait, 5)
        runner.close()
        return code, sent

    code, sent = asyncio.run(scenario())
    assert code == 137
    assert sent == [(1, b"block"), (2, b"/system/bin/sh: killed: over the 0.1 s time limit\n")]
    assert device.dropped.is_set()


def test_a_line_that_waited_for_a_slot_gets_its_whole_time_limit():
    # Its output deadline counted from when it asked for a slot: a line that waited past
    # the limit was cut after its first piece of output (137), though it ran at once.
    device = BlockingDevice(time_limit=0.2)

    async def scenario():
        runner = CommandRunner(device, per_connection=1)
        session = runner.session()
        sent: list[tuple[int, bytes]] = []

        async def slow_send(fd: int, data: bytes) -> None:  # a client a moment behind
            await asyncio.sleep(0.05)
            sent.append((fd, data))

        blocked = asyncio.ensure_future(session.run("block", collect()[1]))
        await asyncio.sleep(0.05)
        quick = asyncio.ensure_future(session.run("quick", slow_send))
        assert (await blocked).code == 137  # answered for; its worker keeps the slot
        await asyncio.sleep(0.3)
        device.release.set()
        ended = await asyncio.wait_for(quick, 10)
        runner.close()
        return ended, sent

    ended, sent = asyncio.run(scenario())
    assert ended.code == 3 and sent == [(1, b"quick"), (1, b" done")]


def test_a_line_its_client_was_told_was_killed_never_runs_later():
    # With every worker busy, the line waited in the pool's queue past its time; its client
    # got 137 ("killed"), then a worker ran it whole: a tap the client thought undone.
    device = BlockingDevice(time_limit=0.1)

    async def scenario():
        runner = CommandRunner(device, threads=1)
        blocked = asyncio.ensure_future(runner.session().run("block", collect()[1]))
        await asyncio.sleep(0.05)
        sent, send = collect()
        ended = await runner.session().run("input tap 1 1", send)  # another connection
        device.release.set()
        await blocked
        await asyncio.sleep(0.2)  # time for the queued line to run, were it to
        runner.close()
        return ended, sent

    ended, sent = asyncio.run(scenario())
    assert ended.code == 137 and b"killed" in sent[-1][1]
    assert device.started == ["block"]


def test_a_device_without_a_time_limit_runs_lines_to_their_end():
    # The wait for room took an infinite timeout, which threading refuses (OverflowError).
    assert ran(BlockingDevice(time_limit=math.inf), "quick") == (3, [(1, b"quick"),
                                                                      (1, b" done")])


def test_one_connection_cannot_take_every_thread():
    device = BlockingDevice()

    async def scenario():
        runner = CommandRunner(device, threads=3, per_connection=2)
        hog, other = runner.session(), runner.session()
        _, send = collect()
        blocked = [asyncio.ensure_future(hog.run(f"block{n}", send)) for n in range(3)]
        await asyncio.sleep(0.2)
        started_before_other = list(device.started)
        await asyncio.wait_for(other.run("quick", send), 5)  # a thread was left for it
        device.release.set()
        await asyncio.gather(*blocked)
        runner.close()
        return started_before_other

    assert sorted(asyncio.run(scenario())) == ["block0", "block1"]  # the third waited its turn
    assert sorted(device.started) == ["block0", "block1", "block2", "quick"]


class BrokenDevice(BlockingDevice):
    """A device whose command line fails with an error no command should raise."""

    def run(self, command_line: str, stdin: bytes = b"", emit=None,
            started: float | None = None) -> ShellResult:
        raise ValueError(f"bug in {command_line}")


def test_a_command_lines_own_failure_exits_one_with_the_error_not_zero():
    assert ran(BrokenDevice(), "frob") == (1, [(2, b"/system/bin/sh: frob: bug in frob\n")])


class _Frames:
    """A stream that holds the given bytes, then ends."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def read_exactly(self, size: int) -> bytes:
        if len(self.data) < size:
            raise ConnectionError("stream closed")
        piece, self.data = self.data[:size], self.data[size:]
        return piece


def test_a_clients_input_is_gathered_to_its_end_and_refused_past_the_limit():
    from mobileintent_gym.adbd.limits import InputLimitExceeded
    from mobileintent_gym.adbd.services import V2_CLOSE_STDIN, V2_STDIN, _Input, v2_frame

    frames = v2_frame(V2_STDIN, b"abc") + v2_frame(V2_STDIN, b"def")

    async def gathered(data: bytes, limit: int):
        stdin = _Input(_Frames(data), v2=True, limit=limit)
        return await asyncio.get_running_loop().run_in_executor(None, stdin.read, 5)

    assert asyncio.run(gathered(frames + v2_frame(V2_CLOSE_STDIN, b""), 64)) == b"abcdef"
    assert asyncio.run(gathered(frames, 64)) == b"abcdef"  # the client went away
    with pytest.raises(InputLimitExceeded, match="input over the 4 byte limit"):
        asyncio.run(gathered(frames, 4))


def test_a_terminals_keys_edit_the_line_as_a_line_discipline_does():
    from mobileintent_gym.adbd.services import _keys

    async def typed(keys: bytes, pending: bytes = b""):
        echoed = []

        async def send(fd: int, data: bytes) -> None:
            echoed.append(data)

        text, finished = await _keys(keys, pending, send, False)
        return text, finished, b"".join(echoed)

    # DEL takes a whole UTF-8 character; Ctrl-D on a typed line is ignored.
    assert asyncio.run(typed("echo é\x7f\x04!".encode())) == (b"echo !", False,
                                                              "echo é\b \b!".encode())
    assert asyncio.run(typed(b"\x04", b"ls\r")) == (b"ls\r", True, b"")  # an empty line
    assert asyncio.run(typed(b"ab\x03c")) == (b"c", False, b"ab^C\nc")


def test_a_lines_time_counts_from_when_it_was_started():
    # A line that waited for a worker had its whole limit again once one took it.
    import time

    from mobileintent_gym.adbd.device import VirtualDevice
    from mobileintent_gym.phone import SimPhone

    device = VirtualDevice(SimPhone(540, 1200), limits=ShellLimits(time_limit=2.0))
    late = device.run("input keyevent 3; am start -n com.mobileintent.music/.Main",
                      started=time.monotonic() - 5)
    assert late.code == 137 and b"over the 2 s time limit" in late.chunks[0][1]
    assert device.phone.route() == "launcher" and not device.phone.events
    assert device.run("input keyevent 3", started=time.monotonic()).code == 0


def test_a_command_reading_its_input_when_the_stream_goes_ends_quietly():
    # The worker blocked reading stdin got concurrent.futures.CancelledError when the
    # connection was dropped, and the runner logged "command line 'cat' failed" with a
    # traceback: a false error for every such disconnect.
    from mobileintent_gym.adbd.runner import OutputDropped
    from mobileintent_gym.adbd.services import _Input

    class Silent:
        """A client that never sends stdin."""

        async def read(self):
            await asyncio.Event().wait()

    async def drop_while_reading():
        stdin = _Input(Silent(), v2=False, limit=10)
        reading = asyncio.get_running_loop().run_in_executor(None, stdin.read, 30.0)
        await asyncio.sleep(0.1)
        stdin.close()
        with pytest.raises(OutputDropped, match="closed while the command read its input"):
            await reading

    asyncio.run(drop_while_reading())
