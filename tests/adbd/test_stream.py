"""Flow control on one stream, driven directly (no sockets)."""

import asyncio

import pytest

from mobileintent_gym.adbd.packet import A_OKAY, A_WRTE, Packet, ProtocolError
from mobileintent_gym.adbd.stream import Stream, StreamClosed


def test_host_data_is_acknowledged_only_when_read_and_a_third_write_is_a_violation():
    async def scenario() -> list[Packet]:
        sent: list[Packet] = []
        stream = Stream(1, 7, sent.append, 4096)
        stream.on_write(b"abc")
        stream.on_write(b"de")  # the adb server sends a second one at times
        with pytest.raises(ProtocolError, match="while 2 were not acknowledged"):
            stream.on_write(b"fgh")
        assert sent == []
        assert await stream.read_exactly(2) == b"ab"
        assert sent == [Packet(A_OKAY, 1, 7)]
        stream.on_write(b"fgh")  # allowed again once one was acknowledged
        assert await stream.read() == b"c"  # the rest of the buffer first
        assert await stream.read() == b"de"
        assert await stream.read() == b"fgh"
        stream.on_write(b"")  # an empty WRTE is acknowledged at once
        stream.on_close()
        assert await stream.read() == b"" and await stream.read() == b""
        return sent

    assert asyncio.run(scenario()) == [Packet(A_OKAY, 1, 7)] * 4


def test_device_writes_wait_for_each_okay_and_respect_maxdata():
    async def scenario() -> list[Packet]:
        sent: list[Packet] = []
        stream = Stream(1, 7, sent.append, 4)
        writer = asyncio.create_task(stream.write(b"0123456789"))
        for expected in (b"0123", b"4567", b"89"):
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert sent[-1] == Packet(A_WRTE, 1, 7, expected) and not writer.done()
            stream.on_okay()
        await writer
        with pytest.raises(StreamClosed):
            stream.on_close()
            await stream.write(b"x")
        return sent

    assert len(asyncio.run(scenario())) == 3
