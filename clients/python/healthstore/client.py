"""Blocking client: one socket, a reader thread, calls matched by call_id (pipelining allowed)."""

import itertools
import queue
import socket
import threading

from . import errors
from .calls import Calls
from .framing import DEFAULT_MAX_FRAME_BYTES, FrameDecoder, decode_server_message, encode_frame
from .v1 import healthstore_pb2 as pb

PROTOCOL_VERSION = 1
_CLOSED = object()


def hello_message(token, bundle_id="", name="", version="", product_type="", os_version=(0, 0, 0), default_device=None):
    """The Hello call: credential, the caller's revision and default device."""
    major, minor, patch = (list(os_version) + [0, 0, 0])[:3]
    hello = pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=token,
        source_revision=pb.SourceRevision(source=pb.Source(name=name, bundle_id=bundle_id), version=version,
                                          product_type=product_type, os_major=major, os_minor=minor, os_patch=patch))
    if default_device:
        hello.default_device.CopyFrom(default_device if isinstance(default_device, pb.Device) else pb.Device(**default_device))
    return hello


def open_socket(host="127.0.0.1", port=7420, unix_path=None, timeout=10.0):
    """A connected TCP or Unix-domain socket."""
    if unix_path:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(unix_path)
    else:
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(None)
    return sock


class Pending:
    """A call in flight: a queue of its answers; result() waits for the single answer."""

    def __init__(self, client, call_id, result_field, extract):
        self.client, self.call_id = client, call_id
        self._field, self._extract = result_field, extract
        self.answers = queue.Queue()

    def next_message(self, timeout=None):
        item = self.answers.get(timeout=timeout)
        if item is _CLOSED:
            raise self.client.closed_error or errors.ConnectionClosed("connection closed")
        if item.WhichOneof("result") == "error":
            raise errors.from_error(item.error)
        return item

    def result(self, timeout=None):
        """Blocks for the answer and returns the extracted value (raises the typed error)."""
        message = self.next_message(timeout)
        return self._extract(getattr(message, self._field))


class Client(Calls):
    """Blocking HealthStore client. Use `Client.connect(token, ...)`; it is a context manager."""

    def __init__(self, sock, max_frame_bytes=DEFAULT_MAX_FRAME_BYTES, timeout=30.0):
        self._sock = sock
        self._decoder = FrameDecoder(max_frame_bytes)
        self._ids = itertools.count(1)
        self._pending = {}
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self.timeout = timeout
        self.closed_error = None
        self.hello_result = None
        self._reader = threading.Thread(target=self._read_loop, name="healthstore-reader", daemon=True)
        self._reader.start()

    @classmethod
    def connect(cls, token, host="127.0.0.1", port=7420, unix_path=None, timeout=30.0, **hello):
        """Connects, says Hello and returns the ready client (raises Unauthenticated on a bad token)."""
        client = cls(open_socket(host, port, unix_path, timeout), timeout=timeout)
        try:
            client.hello_result = client._unary("hello", hello_message(token, **hello), "hello", lambda r: r)
        except BaseException:
            client.close()
            raise
        return client

    # -- plumbing ---------------------------------------------------------------------------------
    def submit(self, call_field, request, result_field, extract=lambda r: r):
        """Sends a call without waiting; returns its Pending (pipelining)."""
        with self._lock:
            if self.closed_error is not None:
                raise self.closed_error
            call_id = next(self._ids)
            pending = Pending(self, call_id, result_field, extract)
            self._pending[call_id] = pending
        message = pb.ClientMessage(call_id=call_id)
        getattr(message, call_field).CopyFrom(request)
        self.send_raw(encode_frame(message))
        return pending

    def send_raw(self, data):
        """Writes bytes as they are (tests use this to send malformed frames)."""
        with self._send_lock:
            self._sock.sendall(data)

    def _unary(self, call_field, request, result_field, extract):
        pending = self.submit(call_field, request, result_field, extract)
        try:
            return pending.result(self.timeout)
        finally:
            self._forget(pending.call_id)

    def _collect(self, call_field, request, result_field, combine):
        pending = self.submit(call_field, request, result_field)
        try:
            pages = []
            while True:
                message = pending.next_message(self.timeout)
                pages.append(getattr(message, result_field))
                if not message.more:
                    return combine(pages)
        finally:
            self._forget(pending.call_id)

    def _stream(self, call_field, request, result_field, extract=lambda r: r):
        pending = self.submit(call_field, request, result_field)

        def iterate():
            try:
                while True:
                    message = pending.next_message()
                    if message.WhichOneof("result") == "call_ended":
                        ended = errors.from_call_ended(message.call_ended)
                        if ended is None:
                            return
                        raise ended
                    yield extract(getattr(message, result_field))
                    # Back for the next event: the consumer is done with this one (§6.9).
                    if message.WhichOneof("result") == "observer_event" and message.observer_event.sequence:
                        ack = pb.AckObserverEvent(target_call_id=pending.call_id, sequence=message.observer_event.sequence)
                        self.send_raw(encode_frame(pb.ClientMessage(call_id=next(self._ids), ack_observer_event=ack)))
                    if not message.more:
                        return
            finally:
                self.cancel(pending.call_id)

        return iterate()

    def cancel(self, call_id):
        """Ends a long-running call (best effort)."""
        with self._lock:
            still_running = self._pending.pop(call_id, None) is not None
        if still_running and self.closed_error is None:
            try:
                message = pb.ClientMessage(call_id=next(self._ids), cancel=pb.Cancel(target_call_id=call_id))
                self.send_raw(encode_frame(message))
            except OSError:
                pass

    def _forget(self, call_id):
        with self._lock:
            self._pending.pop(call_id, None)

    def _read_loop(self):
        try:
            while True:
                data = self._sock.recv(65536)
                if not data:
                    break
                for payload in self._decoder.feed(data):
                    self._dispatch(decode_server_message(payload))
        except (OSError, ValueError) as exc:
            self.closed_error = errors.ConnectionClosed(f"connection lost: {exc}")
        finally:
            with self._lock:
                if self.closed_error is None:
                    self.closed_error = errors.ConnectionClosed("connection closed by the server")
                pending, self._pending = list(self._pending.values()), {}
            for p in pending:
                p.answers.put(_CLOSED)

    def _dispatch(self, message):
        if message.call_id == 0 and message.WhichOneof("result") == "error":
            # A connection-level error: every call in flight fails with it, and the server closes.
            self.closed_error = errors.from_error(message.error)
            with self._lock:
                pending = list(self._pending.values())
            for p in pending:
                p.answers.put(message)
            return
        with self._lock:
            pending = self._pending.get(message.call_id)
        if pending is not None:
            pending.answers.put(message)

    def close(self):
        """Closes the connection."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
