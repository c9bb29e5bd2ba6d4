"""asyncio client: the same calls as `Client`, as coroutines and async iterators."""

from __future__ import annotations

import asyncio
import itertools
import ssl
from types import TracebackType
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Generator, List, Mapping, Optional, Sequence, Tuple, Type, Union

from google.protobuf.message import DecodeError

from . import errors
from .calls import AsyncRunner, Calls, Plan
from .client import client_tls
from .connection import Address, Servers, ServerList, resolve_servers, resolve_token, unreachable
from .failover import FailoverState, Reconnection, not_repeated
from .framing import DEFAULT_MAX_FRAME_BYTES, FrameDecoder, decode_server_message
from .protocol import ack_frame, call_frame, cancel_frame, hello_message, is_connection_error, raise_for_error, stream_ended
from .results import HelloInfo

Streams = Tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _open(address: Address, timeout: Optional[float], context: Optional[ssl.SSLContext],
                server_hostname: Optional[str]) -> Streams:
    hostname = (server_hostname or address.host) if context is not None else None
    try:
        if address.unix_path is not None:
            opening = asyncio.open_unix_connection(address.unix_path, ssl=context, server_hostname=hostname)
        else:
            opening = asyncio.open_connection(address.host, address.port, ssl=context, server_hostname=hostname)
        return await asyncio.wait_for(opening, timeout)
    except (OSError, asyncio.TimeoutError) as exc:
        raise errors.connect_failed(str(address), exc) from None


class Connecting:
    """`AsyncClient.connect(...)`: await it for the client, or use it with `async with` to close the client on exit."""

    def __init__(self, connect: Awaitable[AsyncClient]) -> None:
        self._connect = connect
        self._client: Optional[AsyncClient] = None

    def __await__(self) -> Generator[Any, None, AsyncClient]:
        return self._connect.__await__()

    async def __aenter__(self) -> AsyncClient:
        self._client = await self._connect
        return self._client

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                        tb: Optional[TracebackType]) -> None:
        if self._client is not None:
            await self._client.close()


class AsyncFailover:
    """How an `AsyncClient` moves to another node when its connection is lost (see `client.Failover`)."""

    def __init__(self, servers: ServerList, open_streams: Callable[[Address], Awaitable[Streams]], hello: Any,
                 reconnect_timeout: float) -> None:
        self.servers, self.open_streams, self.hello = servers, open_streams, hello
        self.reconnect_timeout = reconnect_timeout
        self.lock = asyncio.Lock()


class AsyncClient(FailoverState, Calls, AsyncRunner):
    """asyncio HealthStore client: `async with AsyncClient.connect(...) as client:`, or
    `client = await AsyncClient.connect(...)` and later `await client.close()`. Given several nodes,
    it fails over as `Client` does."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, timeout: Optional[float] = 30.0) -> None:
        """Wraps connected streams (Hello not yet sent); most code uses `AsyncClient.connect` instead."""
        self._max_frame_bytes = max_frame_bytes
        self._ids = itertools.count(1)
        self._pending: Dict[int, "asyncio.Queue[Any]"] = {}
        self.timeout = timeout
        self.hello_result: Optional[HelloInfo] = None
        #: The node this client is connected to (set by `connect`).
        self.server: Optional[Address] = None
        self._failover: Optional[AsyncFailover] = None
        self._closed_by_user = False
        self._generation = 0
        # Set except while a new connection's Hello is on its way: other calls wait for it.
        self._greeted = asyncio.Event()
        self._greeted.set()
        self._attach(reader, writer)

    def _attach(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Makes the streams the connection, with a fresh frame decoder and its own read task."""
        self._reader, self._writer = reader, writer
        self._decoder = FrameDecoder(self._max_frame_bytes)
        self.closed_error: Optional[errors.HealthStoreError] = None
        self._generation += 1
        self._task = asyncio.get_running_loop().create_task(self._read_loop(reader))

    @classmethod
    def connect(cls, token: Optional[str] = None, *, server: Optional[Servers] = None, host: Optional[str] = None,
                port: Optional[int] = None, unix_path: Optional[str] = None, token_file: Optional[str] = None,
                tls: Union[bool, ssl.SSLContext] = False, ca: Optional[str] = None, cert: Optional[str] = None,
                key: Optional[str] = None, server_hostname: Optional[str] = None, timeout: Optional[float] = 30.0,
                connect_timeout: Optional[float] = 10.0, bundle_id: str = "", name: str = "", version: str = "",
                product_type: str = "", os_version: Sequence[int] = (0, 0, 0),
                default_device: Optional[Union[Any, Mapping[str, str]]] = None, reconnect_timeout: float = 30.0) -> Connecting:
        """Connects and says Hello; await the result or use it with `async with`. The arguments,
        environment variables, failover and errors are those of `Client.connect`."""
        async def connect() -> AsyncClient:
            credential = resolve_token(token, token_file)
            context = client_tls(tls, ca, cert, key)
            servers = ServerList(resolve_servers(server, host, port, unix_path))
            hello = hello_message(credential, bundle_id, name, version, product_type, os_version, default_device)

            async def open_streams(address: Address) -> Streams:
                return await _open(address, connect_timeout, context, server_hostname)

            failures: List[errors.Unavailable] = []
            for address in servers.dial_order():
                try:
                    reader, writer = await open_streams(address)
                    break
                except errors.TLSError:
                    raise
                except errors.Unavailable as exc:
                    failures.append(exc)
            else:
                raise unreachable(failures)
            servers.connected(address)
            client = cls(reader, writer, timeout=timeout)
            client.server = address
            try:
                client.hello_result = HelloInfo.from_pb(await client.call_raw("hello", hello, "hello"))
            except BaseException:
                await client.close()
                raise
            client._failover = AsyncFailover(servers, open_streams, hello, reconnect_timeout)
            return client

        return Connecting(connect())

    # -- running calls ------------------------------------------------------------------------------
    def _submit(self, call_field: str, request: Any) -> Tuple[int, "asyncio.Queue[Any]"]:
        if self.closed_error is not None:
            raise self.closed_error
        call_id = next(self._ids)
        answers: "asyncio.Queue[Any]" = asyncio.Queue()
        self._pending[call_id] = answers
        self._writer.write(call_frame(call_id, call_field, request))
        return call_id, answers

    async def _drain(self) -> None:
        writer = self._writer
        try:
            await writer.drain()
        except OSError as exc:
            # A write can notice the loss before the read task does: the connection is over either way.
            if writer is self._writer and self.closed_error is None:
                self.closed_error = errors.connection_lost(exc)
            raise self.closed_error or errors.connection_lost(exc) from None

    async def _next(self, answers: "asyncio.Queue[Any]", timeout: Optional[float]) -> Any:
        try:
            item = await asyncio.wait_for(answers.get(), timeout)
        except asyncio.TimeoutError:
            raise errors.DeadlineExceeded(f"no answer within {timeout} s") from None
        if isinstance(item, errors.HealthStoreError):
            raise item
        return raise_for_error(item)

    async def call_raw(self, call_field: str, request: Any, result_field: str) -> Any:
        """Makes one call with a request message and returns the raw result message (for fields
        this client version does not wrap)."""
        call_id, answers = self._submit(call_field, request)
        try:
            await self._drain()
            return getattr(await self._next(answers, self.timeout), result_field)
        finally:
            self._pending.pop(call_id, None)

    def _execute(self, plan: Plan[Any]) -> Any:
        return self._stream(plan) if plan.kind == "stream" else self._answer_with_failover(plan)

    # -- failover -----------------------------------------------------------------------------------
    async def _answer_with_failover(self, plan: Plan[Any]) -> Any:
        while True:
            await self._greeted.wait()
            generation = self._generation
            if self._connection_lost(generation):
                await self._reconnect(generation)
                continue
            try:
                return await self._answer(plan)
            except (errors.ConnectionClosed, errors.Unavailable) as exc:
                if not self._connection_lost(generation):
                    raise
                await self._reconnect(generation)
                refused = not_repeated(plan.call_field, exc)
                if refused is not None:
                    raise refused from exc

    async def _reconnect(self, generation: int) -> None:
        """Connects to the next node that answers, unless another task already did since `generation`."""
        failover = self._failover
        assert failover is not None
        async with failover.lock:
            if self._generation != generation:
                return
            self._writer.close()
            # The old connection's read task may notice the loss only once the next connection is
            # in place, and then leaves the calls alone: those sent on the old one end here.
            self._cut_off()
            reconnection = Reconnection(failover.servers, failover.reconnect_timeout)
            for step in reconnection.steps():
                if isinstance(step, float):
                    await asyncio.sleep(step)
                    continue
                self._greeted.clear()
                try:
                    self._attach(*await failover.open_streams(step))
                    self.hello_result = HelloInfo.from_pb(await self.call_raw("hello", failover.hello, "hello"))
                except errors.TLSError:
                    raise
                except (errors.Unavailable, errors.ConnectionClosed) as exc:
                    reconnection.failed(step, exc)
                    continue
                finally:
                    self._greeted.set()
                reconnection.reached(step)
                self.server = step
                return

    async def _answer(self, plan: Plan[Any]) -> Any:
        call_id, answers = self._submit(plan.call_field, plan.request)
        try:
            await self._drain()
            if plan.kind == "unary":
                return plan.read(getattr(await self._next(answers, self.timeout), plan.result_field))
            pages: List[Any] = []
            while True:
                message = await self._next(answers, self.timeout)
                pages.append(getattr(message, plan.result_field))
                if not message.more:
                    return plan.read(pages)
        finally:
            self._pending.pop(call_id, None)

    async def _stream(self, plan: Plan[Any]) -> AsyncIterator[Any]:
        call_id, answers = self._submit(plan.call_field, plan.request)
        try:
            await self._drain()
            while True:
                message = await self._next(answers, None)
                if stream_ended(message):
                    return
                yield plan.read(getattr(message, plan.result_field))
                ack = ack_frame(next(self._ids), message, call_id)
                if ack is not None:
                    self._writer.write(ack)
                if not message.more:
                    return
        finally:
            if self._pending.pop(call_id, None) is not None and self.closed_error is None:
                self._writer.write(cancel_frame(next(self._ids), call_id))

    # -- reading ------------------------------------------------------------------------------------
    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        error: errors.HealthStoreError
        decoder = self._decoder
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    error = decoder.end_of_stream()
                    break
                for payload in decoder.feed(data):
                    self._dispatch(decode_server_message(payload))
        except (ValueError, DecodeError) as exc:
            error = errors.ConnectionClosed(f"unreadable frame from the server: {exc}")
        except OSError as exc:
            error = errors.connection_lost(exc)
        if reader is not self._reader:
            return
        if self.closed_error is None:
            self.closed_error = error
        self._cut_off()

    def _cut_off(self) -> None:
        """Fails every call waiting for an answer with the connection's loss."""
        error = self.closed_error or errors.ConnectionClosed("connection closed")
        waiting, self._pending = list(self._pending.values()), {}
        for answers in waiting:
            answers.put_nowait(error)

    def _dispatch(self, message: Any) -> None:
        if is_connection_error(message):
            self.closed_error = errors.from_error(message.error)
            for waiting in self._pending.values():
                waiting.put_nowait(message)
            return
        answers = self._pending.get(message.call_id)
        if answers is not None:
            answers.put_nowait(message)

    # -- lifetime -----------------------------------------------------------------------------------
    async def close(self) -> None:
        """Closes the connection; calls still waiting fail with ConnectionClosed."""
        self._closed_by_user = True
        if self.closed_error is None:
            self.closed_error = errors.ConnectionClosed("the client closed the connection")
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except (OSError, ssl.SSLError):
            pass
        self._task.cancel()
        self._cut_off()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                        tb: Optional[TracebackType]) -> None:
        await self.close()
