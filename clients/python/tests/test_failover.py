"""A client given two healthd nodes, one of them killed with SIGKILL. With SQLite each node keeps its
own store (node B starts from a copy of A's data directory, so both accept the same owner token):
these tests assert where the calls go and what the client answers, not shared data."""

import asyncio
import os
import shutil
import signal
import tempfile
import threading
import time
import uuid

import pytest

from conftest import Server
import healthstore.client
from healthstore import AsyncClient, Client, errors, values


@pytest.fixture()
def nodes():
    seed = Server("allow-all")
    token = seed.owner_token
    seed.process.terminate()
    seed.process.wait(15)
    copy = tempfile.mkdtemp(prefix="healthstore-pytest-b-")
    shutil.copytree(seed.data, copy, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.sock"))
    a, b = Server("allow-all", data=seed.data), Server("allow-all", data=copy)
    yield a, b, token
    for node in (a, b):
        node.stop()


def heart_rate(minutes_ago):
    return values.quantity_sample("HeartRate", 60 + minutes_ago % 60, "count/min",
                                  values.now_micros() - minutes_ago * 60_000_000, uuid=uuid.uuid4())


def uuids_on(node, token):
    with Client.connect(token, port=node.port) as client:
        return {sample.uuid for sample in client.samples("HeartRate")}


@pytest.mark.skipif(bool(os.environ.get("HEALTHSTORE_TEST_STORE")),
                    reason="node B is a copy of node A's data directory, so on a shared HEALTHSTORE_TEST_STORE both see one store")
def test_calls_after_the_node_was_killed_go_to_the_next_node(nodes):
    a, b, token = nodes
    with Client.connect(token, server=[f"tcp:127.0.0.1:{a.port}", f"unix:{b.unix_path}"]) as client:
        assert client.save([heart_rate(2)]) == ["STORED"]
        assert str(client.server) == f"127.0.0.1:{a.port}"
        a.process.send_signal(signal.SIGKILL)
        a.process.wait(15)
        after = heart_rate(1)
        assert client.save([after]) == ["STORED"]
        assert str(client.server) == f"unix:{b.unix_path}"
        assert {s.uuid for s in client.samples("HeartRate")} == {uuid.UUID(bytes=after.uuid)}


def test_saves_in_flight_when_the_node_dies_are_answered_by_the_next_one(nodes):
    a, b, token = nodes
    acknowledged, failures, lock = set(), [], threading.Lock()
    with Client.connect(token, server=f"127.0.0.1:{a.port},127.0.0.1:{b.port}") as client:
        def writer(index):
            try:
                for batch in range(12):
                    samples = [heart_rate(1 + i + 40 * batch + 600 * index) for i in range(40)]
                    outcomes = client.save(samples)
                    assert set(outcomes) <= {"STORED", "ALREADY_STORED"}, outcomes
                    with lock:
                        acknowledged.update(uuid.UUID(bytes=s.uuid) for s in samples)
            except Exception as exc:  # reported by the main thread
                failures.append(exc)

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        deadline = time.time() + 60
        while len(acknowledged) < 400 and time.time() < deadline and not failures:
            time.sleep(0.005)
        a.process.send_signal(signal.SIGKILL)
        a.process.wait(15)
        for thread in threads:
            thread.join(120)
        assert failures == []
        assert client.server.port == b.port
    assert len(acknowledged) == 4 * 12 * 40
    # Node A's store survives the SIGKILL: what it acknowledged is there, the rest is on B.
    restarted = Server("allow-all", data=a.data)
    try:
        stored = uuids_on(restarted, token) | uuids_on(b, token)
    finally:
        restarted.stop()
    assert acknowledged <= stored


def freeze(process):
    """SIGSTOP, returning once it has taken effect: every thread's state in /proc is "T" (the signal
    is only queued when kill returns, and a running thread may still read a request meanwhile)."""
    process.send_signal(signal.SIGSTOP)
    deadline = time.time() + 15
    while time.time() < deadline:
        states = []
        for task in os.listdir(f"/proc/{process.pid}/task"):
            with open(f"/proc/{process.pid}/task/{task}/stat") as stat:
                states.append(stat.read().rsplit(")", 1)[1].split()[0])
        if all(state == "T" for state in states):
            return
        time.sleep(0.01)
    pytest.fail(f"process {process.pid} did not stop")


class LateNoticingSocket:
    """A client socket whose reader, once `hold` is set, is handed what the connection delivers
    (the end, a reset) only when `release` is set: a reader thread the scheduler runs late.
    `sent` is set by each write made while holding."""

    def __init__(self, sock):
        self._sock = sock
        self.hold, self.release, self.sent = threading.Event(), threading.Event(), threading.Event()

    def sendall(self, data):
        self._sock.sendall(data)
        if self.hold.is_set():
            self.sent.set()

    def recv(self, size):
        try:
            data, error = self._sock.recv(size), None
        except OSError as exc:
            data, error = b"", exc
        if self.hold.is_set():
            self.release.wait(60)
        if error is not None:
            raise error
        return data

    def __getattr__(self, name):
        return getattr(self._sock, name)


def test_a_call_waiting_on_the_killed_node_is_repeated_even_when_its_reader_notices_the_loss_last(nodes, monkeypatch):
    a, b, token = nodes
    late, dial = [], healthstore.client.connect_socket

    def connect_socket(address, *args):
        sock = dial(address, *args)
        if address.port != a.port:
            return sock
        late.append(LateNoticingSocket(sock))
        return late[-1]

    monkeypatch.setattr(healthstore.client, "connect_socket", connect_socket)
    with Client.connect(token, server=[f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"], timeout=10) as client:
        assert client.save([heart_rate(3)]) == ["STORED"]
        to_a = late[0]
        to_a.hold.set()
        # Stopped, node A leaves the save unread, so its death resets the connection: the next
        # write fails at once, while the reader has not yet noticed.
        freeze(a.process)
        waiting, outcome = heart_rate(2), []

        def save():
            try:
                outcome.append(client.save([waiting]))
            except errors.HealthStoreError as exc:
                outcome.append(exc)

        thread = threading.Thread(target=save)
        thread.start()
        assert to_a.sent.wait(10)
        a.process.send_signal(signal.SIGKILL)
        a.process.wait(15)
        assert client.save([heart_rate(1)]) == ["STORED"]
        assert client.server.port == b.port
        to_a.release.set()
        thread.join(30)
        assert outcome == [["STORED"]], "the save sent to node A before its death is repeated on node B"


def test_a_credential_call_cut_off_by_the_nodes_death_is_reported_not_repeated(nodes):
    a, b, token = nodes
    with Client.connect(token, server=[f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]) as client:
        # Stopped, node A holds the call unanswered until it is killed.
        freeze(a.process)
        outcome = []

        def register():
            try:
                outcome.append(client.register_app("com.example.band", "Band"))
            except errors.HealthStoreError as exc:
                outcome.append(exc)

        thread = threading.Thread(target=register)
        thread.start()
        time.sleep(0.2)
        a.process.send_signal(signal.SIGKILL)
        a.process.wait(15)
        thread.join(60)
        assert len(outcome) == 1 and isinstance(outcome[0], errors.Unavailable), outcome
        assert "not repeated" in outcome[0].message
        assert client.list_apps() == [], "node B never got the RegisterApp"
        assert client.server.port == b.port


def test_the_asyncio_client_fails_over_with_saves_in_flight(nodes):
    a, b, token = nodes

    async def run():
        async with AsyncClient.connect(token, server=f"unix:{a.unix_path},tcp:127.0.0.1:{b.port}") as client:
            assert client.server.unix_path == a.unix_path
            acknowledged = set()

            async def writer(index):
                for batch in range(10):
                    samples = [heart_rate(1 + i + 40 * batch + 600 * index) for i in range(40)]
                    outcomes = await client.save(samples)
                    assert set(outcomes) <= {"STORED", "ALREADY_STORED"}, outcomes
                    acknowledged.update(uuid.UUID(bytes=s.uuid) for s in samples)

            writers = asyncio.gather(*(writer(i) for i in range(4)))
            while len(acknowledged) < 400:
                await asyncio.sleep(0.005)
            a.process.send_signal(signal.SIGKILL)
            await writers
            assert client.server.port == b.port
            assert len(acknowledged) == 4 * 10 * 40
            with pytest.raises(errors.Unavailable):
                await AsyncClient.connect(token, server=f"unix:{a.unix_path}")

    asyncio.run(run())
    a.process.wait(15)
