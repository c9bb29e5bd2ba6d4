"""The client's own behaviour without healthd: addresses, environment, tokens, TLS contexts, type
arguments, and every transport failure mapped to its documented exception (fake servers on loopback)."""

import asyncio
import contextlib
import socket
import ssl
import struct
import threading

import pytest

from healthstore import AsyncClient, Client, errors
from healthstore.calls import type_list
from healthstore.connection import (Address, ServerList, parse_address, parse_servers, resolve_servers, resolve_token,
                                    tls_context)


def test_addresses_parse_host_port_ipv6_and_unix_lists():
    assert parse_address("db.local:7500") == Address("db.local", 7500)
    assert parse_address("db.local") == Address("db.local", 7420)
    assert parse_address("[::1]:9000") == Address("::1", 9000)
    assert parse_address("unix:/run/healthd.sock") == Address(unix_path="/run/healthd.sock")
    assert parse_servers("unix:/tmp/a.sock, 10.0.0.2:7420,") == [Address(unix_path="/tmp/a.sock"), Address("10.0.0.2", 7420)]
    assert str(Address("::1", 9000)) == "[::1]:9000" and str(Address(unix_path="/s")) == "unix:/s"
    for bad in ("host:port", "host:0", "unix:", ":7420", "", "[::1]x"):
        with pytest.raises(ValueError):
            parse_servers(bad)


def test_several_nodes_as_a_list_or_comma_separated_with_tcp_prefixes():
    a, b, c = Address(unix_path="/a"), Address("db.local", 7500), Address("::1", 7421)
    assert parse_address("tcp:db.local:7500") == b
    assert parse_servers(["unix:/a", "tcp:db.local:7500,[::1]:7421"]) == [a, b, c]
    assert resolve_servers(["unix:/a", "db.local:7500"], environ={"HEALTHSTORE_SERVER": "x:1"}) == [a, b]
    assert resolve_servers(environ={"HEALTHSTORE_SERVER": "unix:/a, tcp:db.local:7500"}) == [a, b]
    with pytest.raises(ValueError):
        parse_servers([" , ", ""])


def test_failover_order_starts_past_a_lost_node_and_tries_it_last():
    a, b, c = Address("a", 1), Address("b", 2), Address("c", 3)
    servers = ServerList([a, b, c])
    assert servers.dial_order() == [a, b, c]
    assert servers.dial_order() == [a, b, c], "no connection was made: no node counts as lost"
    servers.connected(b)
    assert servers.dial_order() == [c, a, b]
    servers.connected(c)
    assert servers.dial_order() == [a, b, c], "past the end the order wraps"
    assert ServerList([a, b, c], start=4).dial_order() == [b, c, a]


def test_a_dial_moves_past_refusing_nodes_and_remembers_the_one_reached():
    a, b, c = Address("a", 1), Address("b", 2), Address("c", 3)
    servers = ServerList([a, b, c])

    def connect(address):
        if address == a:
            raise errors.Unavailable("cannot connect to a:1: Connection refused")
        return str(address)

    assert servers.dial(connect) == ("b:2", b)
    assert servers.dial_order() == [c, a, b]


def test_server_comes_from_arguments_then_healthstore_server_then_the_default():
    env = {"HEALTHSTORE_SERVER": "a:1,unix:/b"}
    assert resolve_servers(environ=env) == [Address("a", 1), Address(unix_path="/b")]
    assert resolve_servers("c:2", environ=env) == [Address("c", 2)]
    assert resolve_servers(host="d", environ=env) == [Address("d", 7420)]
    assert resolve_servers(port=9, environ=env) == [Address("127.0.0.1", 9)]
    assert resolve_servers(unix_path="/e", environ=env) == [Address(unix_path="/e")]
    assert resolve_servers(environ={}) == [Address("127.0.0.1", 7420)]


def test_token_comes_from_argument_then_file_then_environment(tmp_path):
    file = tmp_path / "owner.token"
    file.write_text("from-file\nignored second line\n")
    other = tmp_path / "other.token"
    other.write_text("  from-env-file  \n")
    env = {"HEALTHSTORE_TOKEN_FILE": str(other), "HEALTHSTORE_TOKEN": "from-env"}
    missing = str(tmp_path / "absent")
    assert resolve_token("explicit", str(file), env) == "explicit"
    assert resolve_token(None, str(file), env) == "from-file"
    assert resolve_token(None, None, env) == "from-env-file"
    assert resolve_token(None, None, {"HEALTHSTORE_TOKEN": "from-env"}, default_file=missing) == "from-env"
    assert resolve_token(None, None, {}, default_file=str(file)) == "from-file"
    with pytest.raises(errors.Unauthenticated, match="no token"):
        resolve_token(None, None, {}, default_file=missing)
    with pytest.raises(errors.Unauthenticated, match="cannot read token file"):
        resolve_token(None, missing, {})
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(errors.Unauthenticated, match="is empty"):
        resolve_token(None, str(tmp_path / "empty"), {})


def test_type_arguments_take_names_lists_and_tuples():
    assert type_list("HeartRate", ["StepCount", "heart_rate"], ("SleepAnalysis",)) == [
        "HeartRate", "StepCount", "heart_rate", "SleepAnalysis"]
    assert type_list() == []
    for bad in (7, b"HeartRate", ["HeartRate", 3]):
        with pytest.raises(TypeError):
            type_list(bad)


# -- TLS ------------------------------------------------------------------------------------------
def test_tls_context_verifies_the_server_and_its_host_name(certificate):
    cert, key = certificate
    context = tls_context(ca=cert)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.minimum_version >= ssl.TLSVersion.TLSv1_2
    assert len(context.get_ca_certs()) == 1
    tls_context(ca=cert, cert=cert, key=key)  # a client certificate loads
    assert tls_context().verify_mode == ssl.CERT_REQUIRED  # the system trust store
    with pytest.raises(errors.TLSError, match="cannot load TLS files"):
        tls_context(ca="/nonexistent/ca.pem")
    with pytest.raises(errors.TLSError):
        tls_context(ca=cert, cert=key, key=cert)


@contextlib.contextmanager
def fake_server(handle):
    """A loopback TCP server whose one connection is handled by `handle(sock)`; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve():
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            handle(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        listener.close()
        thread.join(5)


def tls_handshake(cert, key):
    def handle(conn):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        with contextlib.suppress(OSError):
            context.wrap_socket(conn, server_side=True).recv(1)
    return handle


def test_untrusted_certificate_and_wrong_host_name_raise_tls_error(certificate):
    cert, key = certificate
    with fake_server(tls_handshake(cert, key)) as port:
        with pytest.raises(errors.TLSError, match="certificate verify failed|self.signed"):
            Client.connect("t", port=port, tls=True)
    with fake_server(tls_handshake(cert, key)) as port:
        with pytest.raises(errors.TLSError, match="[Hh]ostname mismatch|doesn't match"):
            Client.connect("t", port=port, ca=cert, server_hostname="elsewhere.test")

    async def run():
        with fake_server(tls_handshake(cert, key)) as port:
            with pytest.raises(errors.TLSError):
                await AsyncClient.connect("t", port=port, tls=True)

    asyncio.run(run())
    assert issubclass(errors.TLSError, errors.Unavailable)


# -- transport failures ---------------------------------------------------------------------------
def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_connection_raises_unavailable():
    port = closed_port()
    with pytest.raises(errors.Unavailable, match=f"cannot connect to 127.0.0.1:{port}"):
        Client.connect("t", port=port)
    with pytest.raises(errors.Unavailable, match="no such|No such file"):
        Client.connect("t", unix_path="/nonexistent/healthd.sock")
    with pytest.raises(errors.Unavailable, match="no server reachable"):
        Client.connect("t", server=f"127.0.0.1:{port},127.0.0.1:{closed_port()}")

    async def run():
        with pytest.raises(errors.Unavailable, match=f"127.0.0.1:{port}"):
            await AsyncClient.connect("t", port=port)
        with pytest.raises(errors.Unavailable):
            async with AsyncClient.connect("t", server=f"127.0.0.1:{port}"):
                pass

    asyncio.run(run())


def read_hello_then(action):
    def handle(conn):
        (length,) = struct.unpack(">I", conn.recv(4, socket.MSG_WAITALL))
        conn.recv(length, socket.MSG_WAITALL)
        action(conn)
    return handle


def half_frame(conn):
    conn.sendall(struct.pack(">I", 50) + b"\x08\x01")


def reset(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def silence(conn):
    conn.recv(1)


def garbage_frame(conn):
    conn.sendall(struct.pack(">I", 3) + b"\xff\xff\xff")
    conn.recv(1)


@pytest.mark.parametrize("action, error, text", [
    (half_frame, errors.ConnectionClosed, "in the middle of a frame"),
    (lambda conn: None, errors.ConnectionClosed, "connection closed by the server"),
    (reset, errors.ConnectionClosed, "connection lost"),
    (garbage_frame, errors.ConnectionClosed, "unreadable frame"),
    (silence, errors.DeadlineExceeded, "no answer within 0.3 s"),
])
def test_transport_failures_map_to_documented_errors(action, error, text):
    with fake_server(read_hello_then(action)) as port:
        with pytest.raises(error, match=text):
            Client.connect("t", port=port, timeout=0.3)

    async def run():
        with fake_server(read_hello_then(action)) as port:
            with pytest.raises(error, match=text):
                await AsyncClient.connect("t", port=port, timeout=0.3)

    asyncio.run(run())


def test_environment_names_the_server(monkeypatch):
    port = closed_port()
    monkeypatch.setenv("HEALTHSTORE_SERVER", f"127.0.0.1:{port}")
    monkeypatch.setenv("HEALTHSTORE_TOKEN", "t")
    with pytest.raises(errors.Unavailable, match=f"127.0.0.1:{port}"):
        Client.connect()
    monkeypatch.delenv("HEALTHSTORE_TOKEN")
    monkeypatch.delenv("HEALTHSTORE_TOKEN_FILE", raising=False)
    monkeypatch.chdir("/")
    with pytest.raises(errors.Unauthenticated, match="HEALTHSTORE_TOKEN_FILE"):
        Client.connect()
