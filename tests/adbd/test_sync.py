"""The sync service's requests, against a scripted stream (no sockets)."""

import asyncio
import struct
import threading

import pytest

from mobileintent_gym.adbd.client import sync_request
from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.sync import MAX_PATH, SYNC_DATA_MAX, serve_sync


class ScriptedStream:
    """Serves ``data`` to reads and records writes; counts what the service consumed."""

    max_payload, bulk = 1 << 20, None  # as a connection gives them

    def __init__(self, data: bytes) -> None:
        self.data, self.consumed, self.written = data, 0, b""

    async def read_exactly(self, size: int) -> bytes:
        chunk = self.data[self.consumed : self.consumed + size]
        assert len(chunk) == size, "the service read past the script"
        self.consumed += size
        return chunk

    async def write(self, data: bytes) -> None:
        self.written += data

    async def send(self, chunk: bytes) -> None:
        assert len(chunk) <= self.max_payload
        self.written += chunk

    async def acknowledged(self) -> None:
        pass


def send_file(path: str, data: bytes, mtime: int = 1234, mode: int = 0o100644) -> bytes:
    chunks = b"".join(sync_request(b"DATA", data[i : i + SYNC_DATA_MAX])
                      for i in range(0, len(data), SYNC_DATA_MAX))
    done = b"DONE" + struct.pack("<I", mtime)  # the length field carries the mtime
    return sync_request(b"SEND", f"{path},{mode}".encode()) + chunks + done


def test_send_stat_list_recv_quit():
    fs = MemoryFileSystem()
    data = bytes(range(256)) * 300
    script = (send_file("/sdcard/a.bin", data) + sync_request(b"STAT", b"/sdcard/a.bin")
              + sync_request(b"LIST", b"/sdcard") + sync_request(b"RECV", b"/sdcard/a.bin")
              + sync_request(b"QUIT", b""))
    stream = ScriptedStream(script)
    asyncio.run(serve_sync(stream, fs))
    assert stream.consumed == len(script)
    assert fs.read("/sdcard/a.bin") == data
    okay, rest = stream.written[:8], stream.written[8:]
    assert okay == b"OKAY" + bytes(4)
    assert rest[:16] == b"STAT" + struct.pack("<3I", 0o100644, len(data), 1234)
    assert b"DENT" in rest and b"a.bin" in rest
    received = rest[rest.index(b"DATA"):]
    assert received.endswith(b"DONE" + bytes(4))
    assert b"".join(received[i + 8 : i + 8 + struct.unpack_from("<I", received, i + 4)[0]]
                    for i in _data_offsets(received)) == data


def _data_offsets(raw: bytes) -> list[int]:
    offsets, index = [], 0
    while raw[index : index + 4] == b"DATA":
        offsets.append(index)
        index += 8 + struct.unpack_from("<I", raw, index + 4)[0]
    return offsets


def test_a_push_larger_than_the_free_space_fails_before_it_is_buffered():
    fs = MemoryFileSystem(capacity=100_000)
    script = send_file("/sdcard/big.bin", bytes(1_000_000))
    stream = ScriptedStream(script)
    asyncio.run(serve_sync(stream, fs))
    assert stream.written.startswith(b"FAIL") and b"No space left on device" in stream.written
    assert stream.consumed < 3 * SYNC_DATA_MAX  # stopped at the second chunk, not the end
    assert not fs.exists("/sdcard/big.bin")


def test_unknown_request_fails_the_stream():
    stream = ScriptedStream(sync_request(b"NOPE", b""))
    asyncio.run(serve_sync(stream, MemoryFileSystem()))
    assert stream.written.startswith(b"FAIL") and b"unknown sync request" in stream.written


@pytest.mark.parametrize("mode", ["²", "4294967296", str(10**30), "-1"])
def test_a_push_whose_mode_is_no_u32_fails_naming_it(mode):
    stream = ScriptedStream(sync_request(b"SEND", f"/sdcard/p,{mode}".encode()))
    asyncio.run(serve_sync(stream, MemoryFileSystem()))
    assert stream.written.startswith(b"FAIL") and mode.encode() in stream.written


class InterleavedStream(ScriptedStream):
    """Lets other transfers run between its reads, as parallel pushes do."""

    async def read_exactly(self, size: int) -> bytes:
        await asyncio.sleep(0)
        return await super().read_exactly(size)


def test_parallel_pushes_hold_room_as_data_arrives_and_never_pass_the_capacity():
    fs = MemoryFileSystem(capacity=100_000)
    streams = [InterleavedStream(send_file(f"/sdcard/{n}.bin", bytes(70_000))
                                 + sync_request(b"QUIT", b"")) for n in "ab"]

    async def both() -> None:
        await asyncio.gather(*(serve_sync(stream, fs) for stream in streams))

    asyncio.run(both())
    first, second = streams
    assert first.written == b"OKAY" + bytes(4) and fs.read("/sdcard/a.bin") == bytes(70_000)
    assert second.written.startswith(b"FAIL") and b"No space left on device" in second.written
    assert second.consumed < SYNC_DATA_MAX  # refused at its first chunk, none of it buffered
    assert not fs.exists("/sdcard/b.bin") and fs.free() == 30_000  # its room was given back


def test_a_reservation_holds_room_until_committed_or_released():
    fs = MemoryFileSystem(capacity=100)
    with fs.reserve("/sdcard/x") as held:
        held.grow(60)
        assert fs.free() == 40
        with pytest.raises(FileSystemError, match="No space left"):
            fs.write("/sdcard/y", bytes(50))
        with pytest.raises(FileSystemError, match="No space left"):
            fs.reserve("/sdcard/z").grow(41)
    assert fs.free() == 100
    with fs.reserve("/sdcard/x") as held:
        held.grow(60)
        held.commit(bytes(60), 0o644, 7)
    assert (fs.free(), fs.stat("/sdcard/x")) == (40, (0o100644, 60, 7))
    with pytest.raises(FileSystemError, match="Permission denied"):
        fs.reserve("/system/x")


class RemovedWhileListed(MemoryFileSystem):
    """A file system where another client removes /sdcard/d right after its names are read."""

    remover: threading.Thread | None = None

    def list_dir(self, path):
        names = super().list_dir(path)
        if self.remover is None:
            self.remover = threading.Thread(target=self.remove, args=("/sdcard/d",),
                                            kwargs={"recursive": True})
            self.remover.start()
            self.remover.join(0.2)  # done at once when nothing holds the lock
        return names


def test_a_folder_removed_while_it_is_listed_is_listed_whole_or_not_at_all():
    # Names and stats were read apart: a name removed in between had no stat, and LIST
    # failed with TypeError (the stream closed without DONE).
    fs = RemovedWhileListed()
    for i in range(3):
        fs.write(f"/sdcard/d/f{i}", b"x", parents=True)
    stream = ScriptedStream(sync_request(b"LIST", b"/sdcard/d") + sync_request(b"QUIT", b""))
    asyncio.run(serve_sync(stream, fs))
    fs.remover.join()
    assert stream.written.count(b"DENT") == 3 and stream.written.endswith(b"DONE" + bytes(16))
    assert not fs.exists("/sdcard/d")


def served(script: bytes, fs: MemoryFileSystem | None = None) -> bytes:
    stream = ScriptedStream(script + sync_request(b"QUIT", b""))
    asyncio.run(serve_sync(stream, fs or MemoryFileSystem()))
    return stream.written


def test_a_path_of_exactly_max_path_bytes_is_served():
    # Catches: "length > MAX_PATH" -> ">=" (adb itself sends paths of up to 1024 bytes).
    path = "/sdcard/" + "a" * (MAX_PATH - len("/sdcard/"))
    assert served(sync_request(b"STAT", path.encode()))[:4] == b"STAT"
    assert served(sync_request(b"STAT", path.encode() + b"a"))[:4] == b"FAIL"


def test_the_largest_u32_mode_is_accepted():
    # Catches: "int(mode_text) <= MAX_MODE" -> "<" (the top of the u32 range refused).
    fs = MemoryFileSystem()
    assert served(send_file("/sdcard/m.bin", b"x", 7, 0xFFFFFFFF), fs) == b"OKAY" + bytes(4)
    assert fs.read("/sdcard/m.bin") == b"x"


def test_a_push_with_a_folder_mode_fails_and_writes_nothing():
    # Catches: the S_ISDIR check dropped (only links were refused).
    fs = MemoryFileSystem()
    written = served(send_file("/sdcard/d", b"x", 7, 0o40755), fs)
    assert written.startswith(b"FAIL") and b"only regular files" in written
    assert not fs.exists("/sdcard/d")
