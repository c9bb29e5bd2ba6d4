"""Messages both clients send and the reading of answers they share."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

from . import errors
from .framing import encode_frame
from .v1 import healthstore_pb2 as pb

PROTOCOL_VERSION = 1


def hello_message(token: str, bundle_id: str = "", name: str = "", version: str = "", product_type: str = "",
                  os_version: Sequence[int] = (0, 0, 0), default_device: Optional[Union[Any, Mapping[str, str]]] = None) -> Any:
    """The Hello call: the credential, the caller's app revision and its default device (a `Device`
    message or a dict of its fields)."""
    major, minor, patch = (list(os_version) + [0, 0, 0])[:3]
    hello = pb.Hello(
        protocol_version=PROTOCOL_VERSION, token=token,
        source_revision=pb.SourceRevision(source=pb.Source(name=name, bundle_id=bundle_id), version=version,
                                          product_type=product_type, os_major=major, os_minor=minor, os_patch=patch))
    if default_device:
        hello.default_device.CopyFrom(default_device if isinstance(default_device, pb.Device) else pb.Device(**default_device))
    return hello


def call_frame(call_id: int, call_field: str, request: Any) -> bytes:
    """The frame of one call."""
    message = pb.ClientMessage(call_id=call_id)
    getattr(message, call_field).CopyFrom(request)
    return encode_frame(message)


def cancel_frame(call_id: int, target_call_id: int) -> bytes:
    """The frame cancelling a long-running call."""
    return encode_frame(pb.ClientMessage(call_id=call_id, cancel=pb.Cancel(target_call_id=target_call_id)))


def ack_frame(call_id: int, answer: Any, target_call_id: int) -> Optional[bytes]:
    """The frame acknowledging an observer event, or None when `answer` needs no acknowledgement.
    The consumer asks for the next event once it is done with this one."""
    if answer.WhichOneof("result") != "observer_event" or not answer.observer_event.sequence:
        return None
    ack = pb.AckObserverEvent(target_call_id=target_call_id, sequence=answer.observer_event.sequence)
    return encode_frame(pb.ClientMessage(call_id=call_id, ack_observer_event=ack))


def is_connection_error(message: Any) -> bool:
    """Whether a server message is a connection-level error (call 0): every call fails with it and the server closes."""
    return bool(message.call_id == 0 and message.WhichOneof("result") == "error")


def raise_for_error(answer: Any) -> Any:
    """The answer, or the typed exception for an `Error` answer."""
    if answer.WhichOneof("result") == "error":
        raise errors.from_error(answer.error)
    return answer


def stream_ended(answer: Any) -> bool:
    """True when a long-running call ended because the client cancelled it; raises Unavailable when
    the server ended it; False for an ordinary answer."""
    if answer.WhichOneof("result") != "call_ended":
        return False
    ended = errors.from_call_ended(answer.call_ended)
    if ended is not None:
        raise ended
    return True
