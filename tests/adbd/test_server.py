import gc
import io
import logging
import random
import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.adbd import AdbServer, ServerConfig, ServerThread, VirtualDevice
from mobileintent_gym.adbd.client import (
    HOST_BANNER,
    ClientError,
    RawAdb,
    WireClient,
    sync_request,
    v2_packets,
)
from mobileintent_gym.adbd.limits import ShellLimits
from mobileintent_gym.adbd.packet import (
    A_AUTH,
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_VERSION_MIN,
    A_WRTE,
    AUTH_RSAPUBLICKEY,
    AUTH_SIGNATURE,
    AUTH_TOKEN,
    HEADER,
    HEADER_SIZE,
    Packet,
    checksum,
)
from mobileintent_gym.adbd.server import BindRefusedError
from mobileintent_gym.phone import SimPhone


def serve(keys=(), handshake_timeout=10.0) -> ServerThread:
    phone = SimPhone()
    phone.reset(seed=0)
    return ServerThread(AdbServer(VirtualDevice(phone), ServerConfig(
        port=0, keys=keys, packet_timeout=2.0, handshake_timeout=handshake_timeout)))


@pytest.fixture(scope="module")
def running():
    with serve() as thread:
        yield thread


def wait_for_reason(thread: ServerThread, text: str, timeout: float = 5.0) -> bool:
    """Whether a connection ends for a reason containing ``text`` within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text in reason for reason in list(thread.server.recent_reasons)):
            return True
        time.sleep(0.01)
    return False


def open_stream(client: WireClient, service: str, local: int = 1) -> int:
    client.send(Packet(A_OPEN, local, 0, service.encode() + b"\x00"))
    reply = client.recv()
    assert (reply.command, reply.arg1) == (A_OKAY, local)
    return reply.arg0


def read_stream(client: WireClient, local: int = 1) -> bytes:
    data = b""
    while True:
        packet = client.recv()
        if packet.command == A_CLSE:
            return data
        assert packet.command == A_WRTE and packet.arg1 == local
        data += packet.payload
        client.send(Packet(A_OKAY, local, packet.arg0))


def test_handshake_banner_and_negotiated_version(running):
    client = WireClient(running.port)
    reply = client.handshake()
    assert (reply.command, reply.arg0) == (A_CNXN, A_VERSION)
    assert reply.payload.startswith(b"device::ro.product.name=mobileintent_sim;")
    client.close()


def test_shell_v2_frames_stdout_stderr_and_exit_code(running):
    client = WireClient(running.port)
    client.handshake()
    open_stream(client, "shell,v2,raw:echo out; nope")
    frames = v2_packets(read_stream(client))
    assert frames == [(1, b"out\n"), (2, b"/system/bin/sh: nope: inaccessible or not found\n"),
                      (3, bytes([127]))]
    client.close()


def test_flow_control_one_write_in_flight_within_maxdata(running):
    client = WireClient(running.port)
    client.handshake(maxdata=4096)
    remote = open_stream(client, "exec:screencap -p")
    first = client.recv()
    assert first.command == A_WRTE and len(first.payload) == 4096
    client.sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        client.recv()  # nothing more until we acknowledge
    client.sock.settimeout(5)
    client.send(Packet(A_OKAY, 1, remote))
    sizes, data = [len(first.payload)], first.payload
    while (packet := client.recv()).command == A_WRTE:
        sizes.append(len(packet.payload))
        data += packet.payload
        client.send(Packet(A_OKAY, 1, remote))
    assert packet == Packet(A_CLSE, remote, 1)
    assert max(sizes) == 4096 and len(sizes) > 2
    png = io.BytesIO()
    Image.fromarray(running.call(running.server.device.phone.screenshot)).save(png, "PNG")
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")),
                          np.asarray(Image.open(png).convert("RGB")))
    client.close()


def test_checksums_are_sent_until_the_host_negotiates_skipping_them(running):
    for version, summed in ((A_VERSION_MIN, True), (A_VERSION, False)):
        client = WireClient(running.port)
        client.send(Packet(A_CNXN, version, 4096, HOST_BANNER))
        client.sock.sendall(Packet(A_OPEN, 1, 0, b"shell:echo hi\x00").encode())
        packets = [client.recv_raw() for _ in range(3)]  # CNXN, OKAY, WRTE
        assert [raw[:4] for raw, _ in packets] == [b"CNXN", b"OKAY", b"WRTE"]
        banner_raw, banner = packets[0]
        assert HEADER.unpack(banner_raw)[4] == checksum(banner)  # the handshake always is
        write_raw, write = packets[2]
        assert write == b"hi\n"
        assert HEADER.unpack(write_raw)[4] == (checksum(write) if summed else 0)
        client.close()


def test_streams_per_connection_are_capped(running):
    client = WireClient(running.port)
    client.handshake()
    for local in range(1, 65):
        open_stream(client, "shell:", local)
    client.send(Packet(A_OPEN, 65, 0, b"shell:\x00"))
    assert client.recv() == Packet(A_CLSE, 0, 65)
    client.close()


def test_stopping_with_clients_connected_closes_them_quietly(caplog):
    with caplog.at_level(logging.WARNING), serve() as thread:
        client = WireClient(thread.port)
        client.handshake()
        open_stream(client, "shell:")
    assert client.closed_by_server()
    assert thread.server.recent_reasons[-1] == "closed by the server"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_unknown_service_is_refused_with_clse(running):
    client = WireClient(running.port)
    client.handshake()
    client.send(Packet(A_OPEN, 5, 0, b"framebuffer:\x00"))
    assert client.recv() == Packet(A_CLSE, 0, 5)
    client.close()


def test_auth_accepts_an_allowed_key_and_refuses_others(test_key, other_key):
    with serve(keys=(test_key.public,), handshake_timeout=1.0) as thread:
        good = WireClient(thread.port)
        token = good.handshake()
        assert (token.command, token.arg0, len(token.payload)) == (A_AUTH, AUTH_TOKEN, 20)
        good.send(Packet(A_AUTH, AUTH_SIGNATURE, 0, test_key.sign(token.payload)))
        assert good.recv().command == A_CNXN
        bad = WireClient(thread.port)
        token = bad.handshake()
        bad.send(Packet(A_AUTH, AUTH_SIGNATURE, 0, other_key.sign(token.payload)))
        retry = bad.recv()
        assert (retry.command, retry.arg0) == (A_AUTH, AUTH_TOKEN)
        bad.send(Packet(A_AUTH, AUTH_RSAPUBLICKEY, 0, other_key.public.encode().encode() + b"\0"))
        # Held unanswered, as a phone holds a host whose key its user has not allowed
        # (the host then shows it "unauthorized"), until the handshake times out. It was
        # closed at once: the host showed the device "offline" and retried 4 times a
        # second, each refusal a warning in the log.
        time.sleep(0.5)
        assert not wait_for_reason(thread, "is not allowed", timeout=0)
        assert bad.closed_by_server()
        assert wait_for_reason(thread, "test2@host is not allowed (held unauthorized until "
                                       "the handshake timed out)")
        # Refused, then signed with an allowed key: online, and a later timeout is one.
        late = WireClient(thread.port)
        token = late.handshake()
        late.send(Packet(A_AUTH, AUTH_RSAPUBLICKEY, 0, other_key.public.encode().encode() + b"\0"))
        late.send(Packet(A_AUTH, AUTH_SIGNATURE, 0, test_key.sign(token.payload)))
        assert late.recv().command == A_CNXN
        late.sock.sendall(b"\x00")  # a packet started, never finished: timed out (2 s)
        assert late.closed_by_server()
        assert wait_for_reason(thread, "timed out in the handshake, inside a packet")
        unauthenticated = WireClient(thread.port)
        unauthenticated.handshake()
        unauthenticated.send(Packet(A_OPEN, 1, 0, b"shell:id\x00"))
        assert unauthenticated.closed_by_server()


def test_remote_bind_needs_flag_and_keys(test_key):
    phone_device = VirtualDevice(SimPhone())
    with pytest.raises(BindRefusedError, match="only loopback"):
        AdbServer(phone_device, ServerConfig(host="0.0.0.0"))
    with pytest.raises(BindRefusedError, match="allow-list"):
        AdbServer(phone_device, ServerConfig(host="0.0.0.0", allow_remote=True))
    AdbServer(phone_device, ServerConfig(host="0.0.0.0", allow_remote=True,
                                         keys=(test_key.public,)))


def _malformed(rng: random.Random) -> tuple[bytes, bool]:
    """One bad packet; the flag says whether to send a valid CNXN first."""
    valid = Packet(A_WRTE, 1, 1, b"x" * rng.randrange(1, 64)).encode()
    kind = rng.randrange(6)
    if kind == 0:  # random garbage
        return rng.randbytes(rng.randrange(24, 80)), rng.random() < 0.5
    if kind == 1:  # bad magic
        raw = bytearray(valid)
        raw[20 + rng.randrange(4)] ^= 1 << rng.randrange(8)
        return bytes(raw), True
    if kind == 2:  # oversized length
        return HEADER.pack(A_WRTE, 1, 1, rng.randrange(5000, 1 << 32), 0, A_WRTE ^ 0xFFFFFFFF), True
    if kind == 3:  # wrong checksum
        raw = bytearray(valid)
        raw[24] ^= 0xFF
        return bytes(raw), True
    if kind == 4:  # truncated (inside the header, right after it, or in the payload)
        return valid[: rng.choice((1, HEADER_SIZE, rng.randrange(1, len(valid))))], True
    return Packet(A_OPEN, 1, 0, b"shell:id\x00").encode(), False  # OPEN before CNXN


def _fuzz_one(port: int, seed: int) -> bool:
    rng = random.Random(seed)
    payload, handshake = _malformed(rng)
    client = WireClient(port)
    try:
        if handshake:
            client.handshake()
        client.sock.sendall(payload)
        client.sock.shutdown(1)
        return client.closed_by_server()
    finally:
        client.close()


def test_fuzz_ten_thousand_bad_packets_each_close_only_their_connection(running):
    """>= 10,000 malformed packets over loopback; the server keeps serving a healthy client."""
    healthy = WireClient(running.port)
    healthy.handshake()
    errors_before = running.server.protocol_errors
    with ThreadPoolExecutor(8) as pool:
        closed = list(pool.map(lambda seed: _fuzz_one(running.port, seed), range(10_000)))
    assert all(closed)
    deadline = time.monotonic() + 5
    while running.server.protocol_errors - errors_before < 10_000 and time.monotonic() < deadline:
        time.sleep(0.01)
    # Every one of them is a violation, counted once: none passes as a clean close.
    assert running.server.protocol_errors - errors_before == 10_000
    open_stream(healthy, "shell:echo still here")
    assert read_stream(healthy) == b"still here\n"
    healthy.close()


def test_a_public_key_that_is_not_ascii_ends_its_connection_with_the_reason(test_key):
    # base64 raised a plain ValueError, which escaped the handler: no reason, no count.
    with serve(keys=(test_key.public,)) as thread:
        client = WireClient(thread.port)
        assert client.handshake().command == A_AUTH
        client.send(Packet(A_AUTH, AUTH_RSAPUBLICKEY, 0, "clé publique\0".encode()))
        assert client.closed_by_server()
        assert wait_for_reason(thread, "AUTH public key unreadable: not base64")
        assert thread.server.protocol_errors == 1


def test_a_connection_past_max_connections_is_closed_and_the_others_are_served():
    phone = SimPhone()
    phone.reset(seed=0)
    config = ServerConfig(port=0, max_connections=2)
    with ServerThread(AdbServer(VirtualDevice(phone), config)) as thread:
        first, second = WireClient(thread.port), WireClient(thread.port)
        assert [c.handshake().command for c in (first, second)] == [A_CNXN, A_CNXN]
        third = WireClient(thread.port)
        assert third.closed_by_server()  # before it sent anything
        assert wait_for_reason(thread, "refused: 2 connections open, the most "
                                       "max_connections=2 allows")
        open_stream(first, "shell:echo served")
        assert read_stream(first) == b"served\n"
        second.close()
        assert wait_for_reason(thread, "closed by peer")
        fourth = WireClient(thread.port)  # the place second left
        assert fourth.handshake().command == A_CNXN
        assert thread.server.protocol_errors == 0
        for client in (first, third, fourth):
            client.close()


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "8"])
def test_max_connections_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match=f"max_connections must be a positive integer, "
                                         f"got {bad!r}"):
        ServerConfig(max_connections=bad)


def test_raw_adb_names_a_device_that_asks_for_a_key_and_closes_its_socket(test_key, recwarn):
    # It read the AUTH answer as if connected, then failed on a closed socket, left open.
    with serve(keys=(test_key.public,)) as thread:
        with pytest.raises(ClientError, match="answered CNXN with AUTH"):
            RawAdb(thread.port, timeout=5).shell("id")
        gc.collect()
    assert not [w for w in recwarn.list if issubclass(w.category, ResourceWarning)]


def test_a_server_that_cannot_bind_leaves_no_thread_behind():
    def loops() -> int:
        return sum(thread.name == "virtual-adbd" for thread in threading.enumerate())

    before = loops()
    with socket.create_server(("127.0.0.1", 0)) as busy:
        for _ in range(2):
            with pytest.raises(OSError), serve_on(busy.getsockname()[1]):
                pass
    assert loops() == before


def serve_on(port: int) -> ServerThread:
    return ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=port)))


def test_a_client_that_acknowledges_nothing_holds_its_command_line_back(running):
    # The worker ran on and queued all of a line's output, whatever the client read: one
    # silent client could make the server hold 64 MiB per stream, on any number of streams.
    fs = running.server.device.fs
    running.call(fs.write, "/sdcard/big.bin", b"b" * (1 << 20))
    client = WireClient(running.port)
    client.handshake(maxdata=4096)
    local = 7
    open_stream(client, "shell:cat /sdcard/big.bin; cat /sdcard/big.bin; "
                "echo x > /sdcard/marker", local)
    assert client.recv().command == A_WRTE  # the first 4 KiB, not acknowledged
    time.sleep(1.0)  # unfixed, the marker is written within milliseconds
    assert running.call(fs.stat, "/sdcard/marker") is None
    client.send(Packet(A_OKAY, local, 1))
    assert len(read_stream(client, local)) == 2 * (1 << 20) - 4096
    assert running.call(fs.read, "/sdcard/marker") == b"x\n"
    client.close()
    running.call(fs.remove, "/sdcard/marker")


def test_a_client_that_acknowledges_without_reading_cannot_fill_the_servers_memory(running):
    # OKAYs sent blindly let every WRTE through into the socket's send buffer, which grew
    # by the whole output (45 MiB here) since nothing waited for the client to read.
    fs = running.server.device.fs
    running.call(fs.write, "/sdcard/eight.bin", b"e" * (8 << 20))
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", running.port))
    client.sendall(Packet(A_CNXN, A_VERSION, 1 << 20, HOST_BANNER).encode())
    streams = range(1, 7)
    for local in streams:
        client.sendall(Packet(A_OPEN, local, 0, b"shell:cat /sdcard/eight.bin\0").encode())
    time.sleep(0.5)  # the streams have their device ids, 1 upwards as this server gives them
    okays = b"".join(Packet(A_OKAY, n, n).encode() for n in range(1, 50))
    for _ in range(100):
        client.sendall(okays)
        time.sleep(0.01)
    buffered = running.call(lambda: sum(c._writer.transport.get_write_buffer_size()
                                        for c in running.server._clients.values()))
    client.close()
    running.call(fs.remove, "/sdcard/eight.bin")
    assert buffered <= len(streams) * ((1 << 20) + 64), buffered  # a WRTE per stream at most


def test_a_line_the_host_closed_while_it_waited_for_a_slot_never_runs():
    # It ran once a slot came free, seconds after the host had given up on it: a HOME
    # pressed long after a client's Ctrl-C.
    phone = SimPhone()
    phone.open("music")
    device = VirtualDevice(phone, limits=ShellLimits(2.0, 1 << 20))
    with ServerThread(AdbServer(device, ServerConfig(port=0))) as run:
        client = WireClient(run.port, timeout=10)
        client.handshake()
        slow = "shell:echo " + "a" * 28 + "! | grep -E '^(a+)+$'\0"  # killed at the limit
        for local in range(1, 5):  # the connection's 4 slots
            client.send(Packet(A_OPEN, local, 0, slow.encode()))
        client.send(Packet(A_OPEN, 5, 0, b"shell:input keyevent 3\0"))
        time.sleep(0.3)
        client.send(Packet(A_CLSE, 5, 5))  # given up on before it ran
        time.sleep(3.5)  # the slow lines are killed at 2 s; a slot comes free
        assert run.call(phone.route).startswith("music/")
        assert ("input", "keyevent", "3") not in run.call(lambda: list(device.history))
        client.close()


def test_a_client_that_never_reads_is_held_back_not_buffered():
    # Answers the loop writes itself (CLSE to refused OPENs) piled up in the server's write
    # buffer while the client sent on, growing with what it sent. Past what the streams may
    # have out (64 x the payload size, and 1 MiB) reading waits.
    with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as run:
        client = WireClient(run.port, timeout=2)
        client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.handshake(maxdata=4096)  # the streams' bound: 64 x 4 KiB
        refused = Packet(A_OPEN, 1, 0, b"x:\0").encode()
        sent = 0
        with pytest.raises(TimeoutError):  # TCP stops the client: the server reads no more
            while sent < 4_000_000:  # 96 MB of answers: more than any socket buffers hold
                client.sock.sendall(refused * 1000)
                sent += 1000
        buffered = run.call(lambda: [c._writer.transport.get_write_buffer_size()
                                     for c in run.server._clients.values()])
        assert sent < 4_000_000 and max(buffered) <= (64 * 4096 + (1 << 20)) * 2
        assert RawAdb(run.port).shell("echo ok").stdout == b"ok\n"  # others are served
    # Leaving the block stops the server with the client's output unread: the stop must not
    # wait for it to drain (ServerThread.stop raises where the server takes over 10 s).


def test_a_client_that_writes_before_reading_the_streams_output_is_not_deadlocked():
    # With the loop waiting for every byte to go out before reading on, a client that had
    # screencap output waiting and then wrote one WRTE on each of its sync streams (as flow
    # control allows) waited for the server to read, and the server for it: for ever.
    with ServerThread(AdbServer(VirtualDevice(SimPhone()), ServerConfig(port=0))) as run:
        client = WireClient(run.port, timeout=8)
        client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.handshake(maxdata=1 << 20)
        streams = []
        for local in range(1, 41):
            client.send(Packet(A_OPEN, local, 0, b"sync:\0"))
            streams.append((local, client.recv().arg0))
        for local in range(99, 103):
            client.send(Packet(A_OPEN, local, 0, b"shell,v2,raw:screencap\0"))
            assert client.recv().command == A_OKAY
        time.sleep(2)  # screencap's output now waits for the client to read it
        for local, remote in streams:
            client.send(Packet(A_WRTE, local, remote, bytes(1 << 20)))  # raised TimeoutError
        client.close()


def test_the_tenth_bad_signature_ends_the_connection(test_key, other_key):
    # Catches: ">=" -> ">" on max_auth_attempts (an eleventh try was allowed).
    with serve(keys=(test_key.public,)) as thread:
        client = WireClient(thread.port)
        token = client.handshake()
        for attempt in range(1, 10):
            client.send(Packet(A_AUTH, AUTH_SIGNATURE, 0, other_key.sign(token.payload)))
            token = client.recv()
            assert (token.command, token.arg0) == (A_AUTH, AUTH_TOKEN), attempt
        client.send(Packet(A_AUTH, AUTH_SIGNATURE, 0, other_key.sign(token.payload)))
        assert client.closed_by_server()
        assert wait_for_reason(thread, "AUTH refused after 10 bad signatures")


def test_an_open_with_remote_id_zero_ends_the_connection():
    # Catches: the "OPEN with remote id 0" check dropped (id 0 means "no stream" to the host).
    with serve() as thread:
        client = WireClient(thread.port)
        client.handshake()
        client.send(Packet(A_OPEN, 0, 0, b"shell:echo hi\x00"))
        assert client.closed_by_server()
        assert wait_for_reason(thread, "OPEN with remote id 0")


def test_packets_naming_another_remote_id_do_not_touch_the_stream():
    # Catches: dispatch matched streams on the device's id alone, so a CLSE with the
    # wrong host id (a stale or foreign stream's) closed a live one.
    with serve() as thread:
        client = WireClient(thread.port, timeout=3.0)
        client.handshake()
        device_id = open_stream(client, "sync:", local=7)
        client.send(Packet(A_CLSE, 99, device_id))  # not our stream: ignored
        client.send(Packet(A_WRTE, 7, device_id, sync_request(b"STAT", b"/sdcard")))
        replies = [client.recv(), client.recv()]
        assert sorted(p.command for p in replies) == sorted([A_OKAY, A_WRTE])
        (data,) = [p for p in replies if p.command == A_WRTE]
        assert data.arg1 == 7 and data.payload[:4] == b"STAT"
        assert struct.unpack_from("<I", data.payload, 4)[0] & 0o170000 == 0o040000
        client.close()
