"""The stream services the virtual device offers: ``shell:`` (v1 and v2), ``exec:``, ``sync:``.

Service names look like ``shell:CMD``, ``shell,v2,raw:CMD``, ``shell,v2,TERM=xterm,pty:``
(interactive), ``exec:CMD`` and ``sync:``. Shell v2 frames output as
``id (1 byte) + length (u32) + data`` with ids 1 stdout, 2 stderr and 3 exit code, and reads
stdin the same way (id 0 data, 4 close-stdin).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import struct

from mobileintent_gym.adbd.limits import InputLimitExceeded
from mobileintent_gym.adbd.runner import OutputDropped, Send, Session
from mobileintent_gym.adbd.stream import Stream
from mobileintent_gym.adbd.sync import serve_sync

V2_STDIN, V2_STDOUT, V2_STDERR, V2_EXIT, V2_CLOSE_STDIN = 0, 1, 2, 3, 4
_V2_HEADER = struct.Struct("<BI")
_V2_CHUNK = 16 * 1024
_WRITE_PIECE = 64 * _V2_CHUNK  # output sent per stream write: big output is never copied whole
MAX_LINE = 64 * 1024
MAX_STDIN_FRAME = 1024 * 1024  # adb's shell-v2 buffer: its stdin frames carry up to 1 MiB - 5


def split_service(name: str) -> tuple[str, tuple[str, ...], str]:
    """``(kind, options, command)`` of a service name, e.g. ``("shell", ("v2", "raw"), "ls")``."""
    head, _, command = name.partition(":")
    kind, *options = head.split(",")
    return kind, tuple(options), command


def can_open(name: str) -> bool:
    """Whether the device serves ``name`` (checked before the stream is acknowledged)."""
    kind, options, command = split_service(name)
    if ":" not in name:
        return False
    return kind in ("shell", "exec") or (kind == "sync" and not command and not options)


def v2_frame(kind: int, data: bytes) -> bytes:
    """One shell-v2 packet, split into several when ``data`` is large."""
    if not data:
        return _V2_HEADER.pack(kind, 0)
    return b"".join(_V2_HEADER.pack(kind, len(data[i : i + _V2_CHUNK])) + data[i : i + _V2_CHUNK]
                    for i in range(0, len(data), _V2_CHUNK))


async def run_service(session: Session, name: str, stream: Stream) -> None:
    """Serve one opened stream to its end; commands run off the event loop."""
    kind, options, command = split_service(name)
    if kind == "sync":
        await serve_sync(stream, session.device.fs)
        return
    v2 = kind == "shell" and "v2" in options
    send = _sender(stream, v2)
    if kind == "shell" and not command.strip():
        # `adb shell` from a terminal (-t), not a pipe (-T)
        code = await _interactive(session, stream, v2, send, terminal="pty" in options)
    else:
        stdin = _Input(stream, v2, session.device.limits.output_limit)
        try:
            code = (await session.run(command, send, stdin.read,
                                      wanted=lambda: not stream.closed)).code
        finally:
            stdin.close()
    if v2:
        await stream.write(v2_frame(V2_EXIT, bytes([code & 0xFF])))


class _Input:
    """A non-interactive command line's stdin, read from the client when a command asks.

    Commands that read stdin (``cat``, ``grep``) wait for all of it (shell v2's
    close-stdin, or the stream's end) within the time limit; the reading starts then, on
    the event loop. Commands that do not read it cost nothing here, so a client that
    sends nothing (as agent frameworks do) loses no time.

    Args:
        stream: The command line's stream.
        v2: Whether stdin comes framed (shell v2).
        limit: The most bytes taken; past it the command reading stdin fails.
    """

    def __init__(self, stream: Stream, v2: bool, limit: int) -> None:
        self._loop, self._stream, self._v2, self._limit = (asyncio.get_running_loop(), stream,
                                                           v2, limit)
        self._reading: concurrent.futures.Future[bytes] | None = None

    def read(self, timeout: float | None) -> bytes | None:
        """All of stdin (on a worker thread, once); ``None`` when it did not end in time."""
        self._reading = asyncio.run_coroutine_threadsafe(self._gather(), self._loop)
        try:
            return self._reading.result(timeout)
        except concurrent.futures.TimeoutError:
            return None
        except concurrent.futures.CancelledError:  # the connection went: no command failed
            raise OutputDropped("the stream was closed while the command read its input") from None

    async def _gather(self) -> bytes:
        data, finished = bytearray(), False
        try:
            while not finished:
                piece, finished = await (_read_v2_stdin(self._stream, self._limit) if self._v2
                                         else _read_v1_stdin(self._stream))
                data += piece
                if len(data) > self._limit:
                    raise InputLimitExceeded(self._limit)
        except ConnectionError:  # the client went away: what came is all there is
            pass
        return bytes(data)

    def close(self) -> None:
        """Stop reading, if a command started to: the command line has ended."""
        if self._reading is not None:
            self._reading.cancel()


def _sender(stream: Stream, v2: bool) -> Send:
    """Sends output on ``stream``, framed for shell v2 or raw, a piece at a time."""

    async def send(fd: int, data: bytes) -> None:
        for start in range(0, len(data), _WRITE_PIECE):
            piece = data[start : start + _WRITE_PIECE]
            await stream.write(v2_frame(V2_STDOUT if fd == 1 else V2_STDERR, piece) if v2
                               else piece)

    return send


def _terminal(send: Send) -> Send:
    """``send`` as a terminal's line discipline does it: lines end in CR LF."""

    async def to_terminal(fd: int, data: bytes) -> None:
        await send(fd, data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    return to_terminal


async def _interactive(session: Session, stream: Stream, v2: bool, send: Send,
                       terminal: bool = False) -> int:
    """Line mode: run each line of stdin as it arrives.

    Lines end in LF, CR LF or CR. From a ``terminal`` (a pty, whose keys arrive raw: Enter
    is CR) what is typed is echoed, DEL erases the last character, Ctrl-C drops the line
    and Ctrl-D on an empty line ends the shell, as a terminal's line discipline would; a
    prompt comes first and after each line, as Android's shell writes it
    (``simphone:/ $ ``: the device's name). From a pipe there is no prompt.
    """
    pending, code = b"", 0
    send = _terminal(send) if terminal else send
    prompt = f"{session.device.props['ro.product.device']}:/ $ ".encode() if terminal else b""
    if prompt:
        await send(1, prompt)
    while True:
        try:
            data, finished = await (_read_v2_stdin(stream) if v2 else _read_v1_stdin(stream))
        except InputLimitExceeded as err:
            await send(2, f"/system/bin/sh: {err}\n".encode())
            return 1
        if terminal:
            pending, finished = await _keys(data, pending, send, finished)
        else:
            pending += data
        *lines, pending = pending.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        if len(pending) > MAX_LINE:
            return 1
        if finished and pending.strip():
            lines.append(pending)
        for line in lines:
            text = line.decode("utf-8", errors="replace").strip()
            if text == "exit":  # the last line's code, which a fresh shell's exit would lose
                return code
            if text:
                code, exited, aborted = await session.run(text, send)
                if exited or (aborted and not terminal):  # sh reading a script ends there
                    return code
            if prompt:
                await send(1, prompt)
        if finished:
            return code


async def _keys(data: bytes, pending: bytes, send: Send, finished: bool) -> tuple[bytes, bool]:
    """``pending`` with keys typed on a terminal applied (and echoed); whether Ctrl-D ended it."""
    text, echo = bytearray(pending), bytearray()
    for key in data:
        start = max(text.rfind(b"\r"), text.rfind(b"\n")) + 1  # where the line being typed begins
        if key == 4:  # Ctrl-D: on an empty line it ends the shell; elsewhere it is ignored
            if start == len(text):
                finished = True
                break
        elif key == 0x7F:  # DEL: the last character, all of its UTF-8 bytes
            if len(text) > start:
                while len(text) > start + 1 and text[-1] & 0xC0 == 0x80:
                    text.pop()
                text.pop()
                echo += b"\b \b"
        elif key == 3:  # Ctrl-C
            del text[start:]
            echo += b"^C\n"
        else:
            text.append(key)
            echo += b"\n" if key == 13 else bytes([key])
    if echo:
        await send(1, bytes(echo))
    return bytes(text), finished


async def _read_v1_stdin(stream: Stream) -> tuple[bytes, bool]:
    data = await stream.read()
    return data, not data


async def _read_v2_stdin(stream: Stream, limit: int = MAX_STDIN_FRAME) -> tuple[bytes, bool]:
    kind, length = _V2_HEADER.unpack(await stream.read_exactly(_V2_HEADER.size))
    if length > limit:  # never read as the end of input: that would drop it silently
        raise InputLimitExceeded(limit)
    data = await stream.read_exactly(length)
    if kind == V2_STDIN:
        return data, False
    return b"", kind == V2_CLOSE_STDIN
