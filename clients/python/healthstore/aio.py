"""asyncio client: the same calls as `Client`, as coroutines and async iterators."""

import asyncio
import itertools

from . import errors
from .calls import Calls
from .client import hello_message
from .framing import DEFAULT_MAX_FRAME_BYTES, FrameDecoder, decode_server_message, encode_frame
from .v1 import healthstore_pb2 as pb

_CLOSED = object()


class AsyncClient(Calls):
    """asyncio HealthStore client. `client = await AsyncClient.connect(token, ...)`."""

    def __init__(self, reader, writer, max_frame_bytes=DEFAULT_MAX_FRAME_BYTES, timeout=30.0):
        self._reader, self._writer = reader, writer
        self._decoder = FrameDecoder(max_frame_bytes)
        self._ids = itertools.count(1)
        self._pending = {}
        self.timeout = timeout
        self.closed_error = None
        self.hello_result = None
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def connect(cls, token, host="127.0.0.1", port=7420, unix_path=None, timeout=30.0, **hello):
        """Connects, says Hello and returns the ready client."""
        if unix_path:
            reader, writer = await asyncio.open_unix_connection(unix_path)
        else:
            reader, writer = await asyncio.open_connection(host, port)
        client = cls(reader, writer, timeout=timeout)
        try:
            client.hello_result = await client._unary("hello", hello_message(token, **hello), "hello", lambda r: r)
        except BaseException:
            await client.close()
            raise
        return client

    def _submit(self, call_field, request):
        if self.closed_error is not None:
            raise self.closed_error
        call_id = next(self._ids)
        answers = asyncio.Queue()
        self._pending[call_id] = answers
        message = pb.ClientMessage(call_id=call_id)
        getattr(message, call_field).CopyFrom(request)
        self._writer.write(encode_frame(message))
        return call_id, answers

    async def _next(self, answers):
        item = await asyncio.wait_for(answers.get(), self.timeout) if self.timeout else await answers.get()
        if item is _CLOSED:
            raise self.closed_error or errors.ConnectionClosed("connection closed")
        if item.WhichOneof("result") == "error":
            raise errors.from_error(item.error)
        return item

    async def _unary(self, call_field, request, result_field, extract):
        call_id, answers = self._submit(call_field, request)
        try:
            await self._writer.drain()
            return extract(getattr(await self._next(answers), result_field))
        finally:
            self._pending.pop(call_id, None)

    async def _collect(self, call_field, request, result_field, combine):
        call_id, answers = self._submit(call_field, request)
        try:
            await self._writer.drain()
            pages = []
            while True:
                message = await self._next(answers)
                pages.append(getattr(message, result_field))
                if not message.more:
                    return combine(pages)
        finally:
            self._pending.pop(call_id, None)

    def _stream(self, call_field, request, result_field, extract=lambda r: r):
        client = self

        async def iterate():
            call_id, answers = client._submit(call_field, request)
            try:
                while True:
                    answer = await answers.get()
                    if answer is _CLOSED:
                        raise client.closed_error or errors.ConnectionClosed("connection closed")
                    if answer.WhichOneof("result") == "error":
                        raise errors.from_error(answer.error)
                    if answer.WhichOneof("result") == "call_ended":
                        ended = errors.from_call_ended(answer.call_ended)
                        if ended is None:
                            return
                        raise ended
                    yield extract(getattr(answer, result_field))
                    # Back for the next event: the consumer is done with this one (§6.9).
                    if answer.WhichOneof("result") == "observer_event" and answer.observer_event.sequence:
                        ack = pb.AckObserverEvent(target_call_id=call_id, sequence=answer.observer_event.sequence)
                        client._writer.write(encode_frame(pb.ClientMessage(call_id=next(client._ids), ack_observer_event=ack)))
            finally:
                if client._pending.pop(call_id, None) is not None and client.closed_error is None:
                    cancel = pb.ClientMessage(call_id=next(client._ids), cancel=pb.Cancel(target_call_id=call_id))
                    client._writer.write(encode_frame(cancel))

        return iterate()

    async def _read_loop(self):
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    break
                for payload in self._decoder.feed(data):
                    message = decode_server_message(payload)
                    if message.call_id == 0 and message.WhichOneof("result") == "error":
                        self.closed_error = errors.from_error(message.error)
                        for answers in self._pending.values():
                            answers.put_nowait(message)
                        continue
                    answers = self._pending.get(message.call_id)
                    if answers is not None:
                        answers.put_nowait(message)
        except (OSError, ValueError) as exc:
            self.closed_error = errors.ConnectionClosed(f"connection lost: {exc}")
        finally:
            if self.closed_error is None:
                self.closed_error = errors.ConnectionClosed("connection closed by the server")
            for answers in self._pending.values():
                answers.put_nowait(_CLOSED)

    async def close(self):
        """Closes the connection."""
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except OSError:
            pass
        self._task.cancel()
