"""One adb stream (a service the host OPENed) with the protocol's flow control.

The device may have one unacknowledged WRTE per stream: :meth:`Stream.write` waits for the
host's OKAY before sending the next chunk, and cuts data to the negotiated maxdata. Data
the host writes is acknowledged with OKAY only once the service has read it, so a busy
service slows the host down instead of buffering without bound. The host may have
:data:`HOST_IN_FLIGHT` WRTEs unacknowledged: the adb server (29) at times sends a stream's
first data as two WRTEs before any OKAY (seen under concurrent ``adb exec-in``), and adbd
queues them. A host that sends more before an OKAY breaks the protocol and loses its connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from mobileintent_gym.adbd.packet import A_CLSE, A_OKAY, A_WRTE, Packet, ProtocolError

HOST_IN_FLIGHT = 2  # the host's unacknowledged WRTEs a stream takes (see above)


class StreamClosed(ConnectionError):
    """The stream was closed (by the host, or because its connection went away)."""


class Stream:
    """A device-side stream endpoint.

    Args:
        local_id: This side's id for the stream (never 0).
        remote_id: The host's id for the stream.
        send: Queues one packet on the connection.
        max_payload: Largest WRTE payload allowed on the connection.
        drain: Waits until the connection's send buffer is small again (None: no wait).
        bulk: The connection's gate on bulk writes (file data), which a service holds
            while it builds and sends one (None: no gate).

    Attributes:
        max_payload: Largest WRTE payload allowed on the connection.
        bulk: The gate on bulk writes (see above), or ``None``.
    """

    def __init__(
        self, local_id: int, remote_id: int, send: Callable[[Packet], None], max_payload: int,
        drain: Callable[[], Awaitable[None]] | None = None,
        bulk: asyncio.Semaphore | None = None,
    ) -> None:
        self._drain = drain
        self.local_id = local_id
        self.remote_id = remote_id
        self._send = send
        self.max_payload = max_payload
        self.bulk = bulk
        self._acked = asyncio.Event()
        self._acked.set()
        # Holds the unacknowledged WRTEs (HOST_IN_FLIGHT at most), then b"" once ended.
        self._inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._unacked = 0
        # Read but not yet taken; a bytearray, so that taking from its front copies nothing.
        self._buffer = bytearray()
        self.closed = False

    async def write(self, data: bytes) -> None:
        """Send ``data`` as WRTE packets, one in flight at a time, and wait for the last OKAY.

        Raises:
            StreamClosed: When the stream closes before all data is acknowledged.
            ConnectionError: When the connection is lost while its buffer is full.
        """
        for start in range(0, len(data), self.max_payload):
            await self.send(data[start : start + self.max_payload])
        await self.acknowledged()

    async def send(self, chunk: bytes) -> None:
        """Send one WRTE of at most ``max_payload`` bytes once the last one is acknowledged.

        Returns once the connection's send buffer is small again (an OKAY says the host
        took the packet, not that it reads the socket), without waiting for this OKAY: a
        caller that lets go of ``chunk`` then holds no copy of it while the host reads.

        Raises:
            StreamClosed: When the stream is closed.
            ConnectionError: When the connection is lost while its buffer is full.
        """
        await self.acknowledged()
        self._acked.clear()
        self._send(Packet(A_WRTE, self.local_id, self.remote_id, chunk))
        if self._drain is not None:
            await self._drain()

    async def acknowledged(self) -> None:
        """Wait until the host acknowledged the last WRTE.

        Raises:
            StreamClosed: When the stream closes first (or is closed).
        """
        await self._acked.wait()
        if self.closed:
            raise StreamClosed(f"stream {self.local_id} closed before the host's OKAY")

    async def read(self) -> bytes:
        """The next chunk the host wrote (acknowledging it), or ``b""`` once closed."""
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            return data
        return await self._next_chunk()

    async def read_exactly(self, size: int) -> bytes:
        """Exactly ``size`` bytes across as many WRTEs as it takes.

        Raises:
            StreamClosed: When the stream ends first.
        """
        while len(self._buffer) < size:
            chunk = await self._next_chunk()
            if not chunk:
                raise StreamClosed(f"stream {self.local_id} ended inside a {size}-byte read")
            self._buffer += chunk
        with memoryview(self._buffer) as view:
            data = bytes(view[:size])
        del self._buffer[:size]
        return data

    async def _next_chunk(self) -> bytes:
        """The next WRTE's data, acknowledged; ``b""`` (and again on every call) once closed."""
        data = await self._inbox.get()
        if not data:
            self._inbox.put_nowait(b"")
        elif not self.closed:
            self._unacked -= 1
            self._send(Packet(A_OKAY, self.local_id, self.remote_id))
        return data

    def on_okay(self) -> None:
        """The host acknowledged our last WRTE."""
        self._acked.set()

    def on_write(self, data: bytes) -> None:
        """The host sent data; it is acknowledged when read (an empty WRTE at once).

        Raises:
            ProtocolError: When :data:`HOST_IN_FLIGHT` WRTEs are unacknowledged already.
        """
        if self.closed:
            return
        if self._unacked >= HOST_IN_FLIGHT:
            raise ProtocolError(f"WRTE on stream {self.local_id} while {self._unacked} were "
                                "not acknowledged yet")
        if not data:
            self._send(Packet(A_OKAY, self.local_id, self.remote_id))
            return
        self._unacked += 1
        self._inbox.put_nowait(data)

    def on_close(self) -> None:
        """The host closed the stream, or the connection ended: wake every waiter."""
        if not self.closed:
            self.closed = True
            self._inbox.put_nowait(b"")
            self._acked.set()

    def close(self) -> None:
        """Close from this side: send CLSE once."""
        if not self.closed:
            self._send(Packet(A_CLSE, self.local_id, self.remote_id))
            self.on_close()
