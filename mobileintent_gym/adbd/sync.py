"""The ``sync:`` service: file transfer as ``adb push``, ``adb pull`` and adbutils use it.

Requests are ``ID`` + little-endian length + body. ``STAT``/``LIST``/``RECV``/``SEND`` carry a
path (``SEND``: ``path,mode``); ``SEND`` is followed by ``DATA`` chunks and ``DONE`` with the
mtime; ``QUIT`` ends the session. A bad request is answered with ``FAIL`` and ends the
stream (not the connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import stat
import struct
import tempfile

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.stream import Stream
from mobileintent_gym.checks import is_digits

MAX_PATH = 1024
SYNC_DATA_MAX = 64 * 1024
MAX_MODE = 0xFFFFFFFF  # a mode is a u32 on the device
_REQUEST = struct.Struct("<4sI")


class SyncError(Exception):
    """A sync request that cannot be served; its message goes back in a FAIL."""


def _message(tag: bytes, *words: int) -> bytes:
    return tag + struct.pack(f"<{len(words)}I", *words)


def _fail(text: str) -> bytes:
    data = text.encode("utf-8")
    return b"FAIL" + struct.pack("<I", len(data)) + data


async def serve_sync(stream: Stream, fs: MemoryFileSystem) -> None:
    """Serve sync requests until ``QUIT``, the host closing, or a bad request."""
    while True:
        tag, length = _REQUEST.unpack(await stream.read_exactly(_REQUEST.size))
        if tag == b"QUIT":
            return
        try:
            if tag not in (b"STAT", b"LIST", b"RECV", b"SEND"):
                raise SyncError(f"unknown sync request {tag!r}")
            if length > MAX_PATH:
                raise SyncError(f"path of {length} bytes is longer than {MAX_PATH}")
            path = (await stream.read_exactly(length)).decode("utf-8", errors="replace")
            await _REQUESTS[tag](stream, fs, path)
        except (SyncError, FileSystemError) as err:
            await stream.write(_fail(str(err)))
            return


async def _stat(stream: Stream, fs: MemoryFileSystem, path: str) -> None:
    mode, size, mtime = fs.stat(path) or (0, 0, 0)
    await stream.write(_message(b"STAT", mode, size, mtime))


async def _list(stream: Stream, fs: MemoryFileSystem, path: str) -> None:
    out = []
    try:
        entries = fs.entries(path)
    except FileSystemError:  # no folder (now): an empty listing, as adbd gives
        entries = []
    for name, (mode, size, mtime) in entries:
        raw = name.encode("utf-8")
        out.append(_message(b"DENT", mode, size, mtime, len(raw)) + raw)
    out.append(_message(b"DONE", 0, 0, 0, 0))
    await stream.write(b"".join(out))


async def _recv(stream: Stream, fs: MemoryFileSystem, path: str) -> None:
    """Send a file as DATA messages, as many per WRTE as one holds.

    Each WRTE is built only once the last one is acknowledged, while the connection's
    bulk gate is held, and let go of once the connection took it: a client that opens many
    pulls and reads none holds a few WRTEs' worth of the server's memory, not one per
    stream, and a pull waiting for its OKAY holds neither memory nor the gate (one read in
    turn after another never waits for the others). Slices of the file are views.
    """
    data = memoryview(fs.read(path))
    step = SYNC_DATA_MAX * max(1, stream.max_payload // (_REQUEST.size + SYNC_DATA_MAX))
    for start in range(0, len(data), step):
        await stream.acknowledged()
        async with stream.bulk or contextlib.nullcontext():
            await stream.send(_data_messages(data[start : start + step]))
    await stream.write(_message(b"DONE", 0))


def _data_messages(view: memoryview) -> bytes:
    """``view`` as DATA messages of at most :data:`SYNC_DATA_MAX` bytes each."""
    pieces = (view[i : i + SYNC_DATA_MAX] for i in range(0, len(view), SYNC_DATA_MAX))
    return b"".join(_message(b"DATA", len(piece)) + piece for piece in pieces)


async def _send(stream: Stream, fs: MemoryFileSystem, spec: str) -> None:
    path, _, mode_text = spec.rpartition(",")
    if not (path and is_digits(mode_text)
            and int(mode_text) <= MAX_MODE):
        raise SyncError(f"SEND needs 'path,mode' with a mode of 0-{MAX_MODE}, got {spec!r}")
    mode = int(mode_text)
    if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
        raise SyncError(f"{path}: only regular files can be pushed")
    # Room for each chunk is held before its bytes are read, so that parallel pushes cannot
    # together outgrow the storage. The bytes are staged in an unlinked temporary file, not
    # in the server's memory, and read in once complete, on a thread (the read releases the
    # interpreter lock, so that a large file never stalls the event loop).
    with fs.reserve(path) as reservation, tempfile.TemporaryFile(prefix="adbd-push-") as staged:
        while True:
            tag, value = _REQUEST.unpack(await stream.read_exactly(_REQUEST.size))
            if tag == b"DONE":
                break
            if tag != b"DATA" or value > SYNC_DATA_MAX:
                raise SyncError(f"expected DATA of at most {SYNC_DATA_MAX} bytes, "
                                f"got {tag!r} {value}")
            reservation.grow(value)
            staged.write(await stream.read_exactly(value))
        staged.seek(0)
        reservation.commit(await asyncio.to_thread(staged.read), mode, mtime=value)
    await stream.write(_message(b"OKAY", 0))


_REQUESTS = {b"STAT": _stat, b"LIST": _list, b"RECV": _recv, b"SEND": _send}
