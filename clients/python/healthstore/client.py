"""Blocking client: one socket, a reader thread, calls matched by call_id (pipelining allowed)."""

from __future__ import annotations

import itertools
import queue
import socket
import ssl
import threading
import time
from types import TracebackType
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Type, Union

from google.protobuf.message import DecodeError

from . import errors
from .calls import Calls, Plan, SyncRunner
from .connection import Address, Servers, ServerList, connect_socket, resolve_servers, resolve_token, tls_context
from .failover import FailoverState, Reconnection, not_repeated
from .framing import DEFAULT_MAX_FRAME_BYTES, FrameDecoder, decode_server_message
from .protocol import ack_frame, call_frame, cancel_frame, hello_message, is_connection_error, raise_for_error, stream_ended
from .results import HelloInfo

def client_tls(tls: Union[bool, ssl.SSLContext], ca: Optional[str], cert: Optional[str], key: Optional[str]) -> Optional[ssl.SSLContext]:
    """The TLS context a connect call asked for: a given context, one built from ca/cert/key, or None for plain TCP."""
    if isinstance(tls, ssl.SSLContext):
        return tls
    return tls_context(ca, cert, key) if tls or ca or cert else None


class Pending:
    """A call in flight: a queue of its answers; `result()` waits for the single answer."""

    def __init__(self, client: Client, call_id: int, result_field: str, extract: Callable[[Any], Any]) -> None:
        self.client, self.call_id = client, call_id
        self._field, self._extract = result_field, extract
        self.answers: "queue.Queue[Any]" = queue.Queue()

    def next_message(self, timeout: Optional[float] = None) -> Any:
        """The next raw ServerMessage of this call (raises the typed error, or DeadlineExceeded after `timeout` s)."""
        try:
            item = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise errors.DeadlineExceeded(f"no answer within {timeout} s") from None
        if isinstance(item, errors.HealthStoreError):
            raise item
        return raise_for_error(item)

    def result(self, timeout: Optional[float] = None) -> Any:
        """Blocks for the answer and returns the extracted value (raises the typed error)."""
        return self._extract(getattr(self.next_message(timeout), self._field))


class Failover:
    """How a client moves to another node of the store when its connection is lost: the nodes in
    dialing order, how to open a socket to one, the Hello to say, and how long to keep trying."""

    def __init__(self, servers: ServerList, open_socket: Callable[[Address], socket.socket], hello: Any,
                 reconnect_timeout: float) -> None:
        self.servers, self.open_socket, self.hello = servers, open_socket, hello
        self.reconnect_timeout = reconnect_timeout
        self.lock = threading.Lock()


class Client(FailoverState, Calls, SyncRunner):
    """Blocking HealthStore client: `with Client.connect(...) as client:`. Safe to share between threads.

    Connected through `Client.connect` to several nodes of one store, a client whose connection is
    lost (the node died, or refuses connections) reconnects to the next node and repeats the calls
    that were cut off when they are safe to repeat; the others fail with Unavailable."""

    def __init__(self, sock: socket.socket, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, timeout: Optional[float] = 30.0) -> None:
        """Wraps a connected socket (Hello not yet sent); most code calls `Client.connect` instead."""
        self._max_frame_bytes = max_frame_bytes
        self._ids = itertools.count(1)
        self._pending: Dict[int, Pending] = {}
        self._lock = threading.Lock()
        # While a new connection's Hello is on its way, other calls wait: Hello must come first.
        self._greeting = False
        self._greeted = threading.Condition(self._lock)
        self._send_lock = threading.Lock()
        self.timeout = timeout
        self.closed_error: Optional[errors.HealthStoreError] = None
        self.hello_result: Optional[HelloInfo] = None
        #: The node this client is connected to (set by `connect`).
        self.server: Optional[Address] = None
        self._failover: Optional[Failover] = None
        self._closed_by_user = False
        self._generation = 0
        self._attach(sock)

    def _attach(self, sock: socket.socket, greeting: bool = False) -> None:
        """Makes `sock` the connection, with a fresh frame decoder and its own reader thread; with
        `greeting`, calls other than Hello wait until `_greeting_done`."""
        with self._lock:
            self._greeting = greeting
            self._sock = sock
            self._decoder = FrameDecoder(self._max_frame_bytes)
            self.closed_error = None
            self._generation += 1
        self._reader = threading.Thread(target=self._read_loop, args=(sock,), name="healthstore-reader", daemon=True)
        self._reader.start()

    @classmethod
    def connect(cls, token: Optional[str] = None, *, server: Optional[Servers] = None, host: Optional[str] = None,
                port: Optional[int] = None, unix_path: Optional[str] = None, token_file: Optional[str] = None,
                tls: Union[bool, ssl.SSLContext] = False, ca: Optional[str] = None, cert: Optional[str] = None,
                key: Optional[str] = None, server_hostname: Optional[str] = None, timeout: Optional[float] = 30.0,
                connect_timeout: Optional[float] = 10.0, bundle_id: str = "", name: str = "", version: str = "",
                product_type: str = "", os_version: Sequence[int] = (0, 0, 0),
                default_device: Optional[Union[Any, Mapping[str, str]]] = None, reconnect_timeout: float = 30.0) -> Client:
        """Connects, says Hello and returns the ready client.

        The server is `unix_path`, else `host`/`port`, else `server` ("HOST:PORT", "tcp:HOST:PORT",
        "unix:PATH", a comma-separated list of them or a Python list: several nodes of one store,
        tried in order), else $HEALTHSTORE_SERVER, else 127.0.0.1:7420. After a lost connection the
        client reconnects, to the next node first, for up to `reconnect_timeout` seconds. The
        token is `token`, else `token_file`, else $HEALTHSTORE_TOKEN_FILE, else $HEALTHSTORE_TOKEN,
        else ./data/owner.token. `tls=True` (or `ca=`) verifies the server's certificate and host
        name against `ca` or the system trust store; `cert`/`key` present a client certificate.
        `timeout` bounds each call's wait for its answer (None = wait forever).

        Raises Unavailable (no connection), TLSError, Unauthenticated (bad or missing token).
        """
        credential = resolve_token(token, token_file)
        context = client_tls(tls, ca, cert, key)
        servers = ServerList(resolve_servers(server, host, port, unix_path))

        def open_socket(address: Address) -> socket.socket:
            return connect_socket(address, connect_timeout, context, server_hostname)

        sock, client_server = servers.dial(open_socket)
        client = cls(sock, timeout=timeout)
        client.server = client_server
        try:
            hello = hello_message(credential, bundle_id, name, version, product_type, os_version, default_device)
            client.hello_result = HelloInfo.from_pb(client.call_raw("hello", hello, "hello"))
        except BaseException:
            client.close()
            raise
        client._failover = Failover(servers, open_socket, hello, reconnect_timeout)
        return client

    # -- failover -----------------------------------------------------------------------------------
    def _reconnect(self, generation: int) -> None:
        """Connects to the next node that answers, unless another thread already did since `generation`."""
        failover = self._failover
        assert failover is not None
        with failover.lock:
            if self._generation != generation:
                return
            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes a reader still blocked on the old socket
            except OSError:
                pass
            self._sock.close()
            with self._lock:
                # The old socket's reader may notice the loss only once the next connection is in
                # place, and then leaves the calls alone: those sent on the old one end here.
                self._cut_off()
            reconnection = Reconnection(failover.servers, failover.reconnect_timeout)
            for step in reconnection.steps():
                if isinstance(step, float):
                    time.sleep(step)
                    continue
                try:
                    self._attach(failover.open_socket(step), greeting=True)
                    try:
                        self.hello_result = HelloInfo.from_pb(self.call_raw("hello", failover.hello, "hello"))
                    finally:
                        with self._lock:
                            self._greeting = False
                            self._greeted.notify_all()
                except errors.TLSError:
                    raise
                except (errors.Unavailable, errors.ConnectionClosed) as exc:
                    reconnection.failed(step, exc)
                    continue
                reconnection.reached(step)
                self.server = step
                return

    # -- running calls ------------------------------------------------------------------------------
    def submit(self, call_field: str, request: Any, result_field: str, extract: Callable[[Any], Any] = lambda m: m) -> Pending:
        """Sends a call without waiting and returns its Pending (pipelining); `call_field` and
        `result_field` name the ClientMessage and ServerMessage oneof fields."""
        with self._lock:
            while self._greeting and call_field != "hello":
                self._greeted.wait()
            if self.closed_error is not None:
                raise self.closed_error
            call_id = next(self._ids)
            pending = Pending(self, call_id, result_field, extract)
            self._pending[call_id] = pending
            # The connection the call waits on, even if a failover replaces it before the write.
            sock = self._sock
        try:
            self._send(sock, call_frame(call_id, call_field, request))
        except BaseException:
            self._forget(call_id)
            raise
        return pending

    def call_raw(self, call_field: str, request: Any, result_field: str) -> Any:
        """Makes one call with a request message and returns the raw result message (for fields
        this client version does not wrap)."""
        pending = self.submit(call_field, request, result_field)
        try:
            return pending.result(self.timeout)
        finally:
            self._forget(pending.call_id)

    def send_raw(self, data: bytes) -> None:
        """Writes bytes as they are (tests use this to send malformed frames); ConnectionClosed when the connection is gone."""
        self._send(self._sock, data)

    def _send(self, sock: socket.socket, data: bytes) -> None:
        try:
            with self._send_lock:
                sock.sendall(data)
        except OSError as exc:
            # A write can notice the loss before the reader does: the connection is over either way.
            with self._lock:
                if sock is self._sock and self.closed_error is None:
                    self.closed_error = errors.connection_lost(exc)
            raise self.closed_error or errors.connection_lost(exc) from None

    def _execute(self, plan: Plan[Any]) -> Any:
        if plan.kind == "stream":
            return self._stream(plan)
        while True:
            generation = self._generation
            if self._connection_lost(generation):
                self._reconnect(generation)
                continue
            try:
                return self._run(plan)
            except (errors.ConnectionClosed, errors.Unavailable) as exc:
                if not self._connection_lost(generation):
                    raise
                self._reconnect(generation)
                refused = not_repeated(plan.call_field, exc)
                if refused is not None:
                    raise refused from exc

    def _run(self, plan: Plan[Any]) -> Any:
        pending = self.submit(plan.call_field, plan.request, plan.result_field)
        try:
            if plan.kind == "unary":
                return plan.read(getattr(pending.next_message(self.timeout), plan.result_field))
            pages: List[Any] = []
            while True:
                message = pending.next_message(self.timeout)
                pages.append(getattr(message, plan.result_field))
                if not message.more:
                    return plan.read(pages)
        finally:
            self._forget(pending.call_id)

    def _stream(self, plan: Plan[Any]) -> Iterator[Any]:
        pending = self.submit(plan.call_field, plan.request, plan.result_field)
        try:
            while True:
                message = pending.next_message()
                if stream_ended(message):
                    return
                yield plan.read(getattr(message, plan.result_field))
                ack = ack_frame(next(self._ids), message, pending.call_id)
                if ack is not None:
                    self.send_raw(ack)
                if not message.more:
                    return
        finally:
            self.cancel(pending.call_id)

    def cancel(self, call_id: int) -> None:
        """Ends a long-running call (best effort)."""
        with self._lock:
            still_running = self._pending.pop(call_id, None) is not None
        if still_running and self.closed_error is None:
            try:
                self.send_raw(cancel_frame(next(self._ids), call_id))
            except errors.HealthStoreError:
                pass

    def _forget(self, call_id: int) -> None:
        with self._lock:
            self._pending.pop(call_id, None)

    # -- reading ------------------------------------------------------------------------------------
    def _read_loop(self, sock: socket.socket) -> None:
        error: errors.HealthStoreError
        decoder = self._decoder
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    error = decoder.end_of_stream()
                    break
                for payload in decoder.feed(data):
                    self._dispatch(decode_server_message(payload))
        except (ValueError, DecodeError) as exc:
            error = errors.ConnectionClosed(f"unreadable frame from the server: {exc}")
        except OSError as exc:
            error = errors.connection_lost(exc)
        with self._lock:
            if sock is not self._sock:
                return
            if self.closed_error is None:
                self.closed_error = error
            self._cut_off()

    def _cut_off(self) -> None:
        """Fails every call waiting for an answer with the connection's loss; the caller holds `_lock`."""
        error = self.closed_error or errors.ConnectionClosed("connection closed")
        waiting, self._pending = list(self._pending.values()), {}
        for pending in waiting:
            pending.answers.put(error)

    def _dispatch(self, message: Any) -> None:
        if is_connection_error(message):
            self.closed_error = errors.from_error(message.error)
            with self._lock:
                pending = list(self._pending.values())
            for p in pending:
                p.answers.put(message)
            return
        with self._lock:
            found = self._pending.get(message.call_id)
        if found is not None:
            found.answers.put(message)

    # -- lifetime -----------------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the connection; calls still waiting fail with ConnectionClosed."""
        self._closed_by_user = True
        with self._lock:
            if self.closed_error is None:
                self.closed_error = errors.ConnectionClosed("the client closed the connection")
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.close()
