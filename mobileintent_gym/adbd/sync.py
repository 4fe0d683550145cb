"""The ``sync:`` service: file transfer as ``adb push``, ``adb pull`` and adbutils use it.

Requests are ``ID`` + little-endian length + body. ``STAT``/``LIST``/``RECV``/``SEND`` carry a
path (``SEND``: ``path,mode``); ``SEND`` is followed by ``DATA`` chunks and ``DONE`` with the
mtime; ``QUIT`` ends the session. A bad request is answered with ``FAIL`` and ends the
stream (not the connection).
"""

from __future__ import annotations

import stat
import struct

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.stream import Stream

MAX_PATH = 1024
SYNC_DATA_MAX = 64 * 1024
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
    if fs.is_dir(path):
        for name in fs.list_dir(path):
            mode, size, mtime = fs.stat(f"{fs.resolve(path)}/{name}")
            raw = name.encode("utf-8")
            out.append(_message(b"DENT", mode, size, mtime, len(raw)) + raw)
    out.append(_message(b"DONE", 0, 0, 0, 0))
    await stream.write(b"".join(out))


async def _recv(stream: Stream, fs: MemoryFileSystem, path: str) -> None:
    data = fs.read(path)
    out = [_message(b"DATA", len(data[i : i + SYNC_DATA_MAX])) + data[i : i + SYNC_DATA_MAX]
           for i in range(0, len(data), SYNC_DATA_MAX)]
    out.append(_message(b"DONE", 0))
    await stream.write(b"".join(out))


async def _send(stream: Stream, fs: MemoryFileSystem, spec: str) -> None:
    path, _, mode_text = spec.rpartition(",")
    if not path or not mode_text.isdigit():
        raise SyncError(f"SEND needs 'path,mode', got {spec!r}")
    mode = int(mode_text)
    if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
        raise SyncError(f"{path}: only regular files can be pushed")
    # Refuse as soon as the data outgrows the free space, rather than buffer it all first.
    room = fs.free() + (fs.stat(path) or (0, 0, 0))[1]  # a replaced file frees its size
    chunks, size = [], 0
    while True:
        tag, value = _REQUEST.unpack(await stream.read_exactly(_REQUEST.size))
        if tag == b"DONE":
            break
        if tag != b"DATA" or value > SYNC_DATA_MAX:
            raise SyncError(f"expected DATA of at most {SYNC_DATA_MAX} bytes, got {tag!r} {value}")
        size += value
        if size > room:
            raise SyncError(f"{fs.resolve(path)}: No space left on device")
        chunks.append(await stream.read_exactly(value))
    fs.write(path, b"".join(chunks), mode, mtime=value)
    await stream.write(_message(b"OKAY", 0))


_REQUESTS = {b"STAT": _stat, b"LIST": _list, b"RECV": _recv, b"SEND": _send}
