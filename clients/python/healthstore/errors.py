"""Exceptions: one class per protocol ErrorCode, plus the transport failures.

Every failure a call can meet is a `HealthStoreError`; nothing from `socket`, `ssl`, `queue` or
`asyncio` escapes the client. The transport failures map as follows:

- `Unavailable`: no connection could be made (refused, unknown host, unreachable, connect timed
  out, no such Unix socket), or the server ended a long-running call (`CallEnded`).
- `TLSError` (an `Unavailable`): the TLS handshake failed (untrusted certificate, hostname
  mismatch, protocol error) or the TLS layer failed later.
- `ConnectionClosed`: an open connection ended: reset, broken pipe, end of stream (also in the
  middle of a frame), or a frame the client cannot read.
- `DeadlineExceeded`: a call got no answer within the client's `timeout`.
"""

from __future__ import annotations

import ssl
from typing import Any, Dict, Optional, Type

from .v1 import healthstore_pb2 as pb


class HealthStoreError(Exception):
    """A call failed; `code` is the protocol ErrorCode name without prefix (e.g. "INVALID_ARGUMENT")."""

    code = "UNKNOWN"

    def __init__(self, message: str, object_index: Optional[int] = None, field: Optional[str] = None,
                 code: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.object_index = object_index
        self.field = field
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        if self.field:
            text += f" [field {self.field}]"
        if self.object_index is not None:
            text += f" [object {self.object_index}]"
        return text


class ConnectionClosed(HealthStoreError):
    """The connection ended before the call was answered (reset, end of stream, unreadable frame)."""

    code = "CONNECTION_CLOSED"


class DeadlineExceeded(HealthStoreError):
    """The call got no answer within the client's timeout."""

    code = "DEADLINE_EXCEEDED"


class HealthDataUnavailable(HealthStoreError):
    """ErrorCode HEALTH_DATA_UNAVAILABLE."""

    code = "HEALTH_DATA_UNAVAILABLE"


class HealthDataRestricted(HealthStoreError):
    """ErrorCode HEALTH_DATA_RESTRICTED."""

    code = "HEALTH_DATA_RESTRICTED"


class InvalidArgument(HealthStoreError):
    """ErrorCode INVALID_ARGUMENT: the request broke a rule; `field` and `object_index` say where."""

    code = "INVALID_ARGUMENT"


class AuthorizationDenied(HealthStoreError):
    """ErrorCode AUTHORIZATION_DENIED."""

    code = "AUTHORIZATION_DENIED"


class AuthorizationNotDetermined(HealthStoreError):
    """ErrorCode AUTHORIZATION_NOT_DETERMINED: request authorization first."""

    code = "AUTHORIZATION_NOT_DETERMINED"


class DatabaseInaccessible(HealthStoreError):
    """ErrorCode DATABASE_INACCESSIBLE."""

    code = "DATABASE_INACCESSIBLE"


class UserCanceled(HealthStoreError):
    """ErrorCode USER_CANCELED."""

    code = "USER_CANCELED"


class NoData(HealthStoreError):
    """ErrorCode NO_DATA: nothing matched (statistics)."""

    code = "NO_DATA"


class DataSizeExceeded(HealthStoreError):
    """ErrorCode DATA_SIZE_EXCEEDED."""

    code = "DATA_SIZE_EXCEEDED"


class Unauthenticated(HealthStoreError):
    """ErrorCode UNAUTHENTICATED: bad or missing token (also raised when no token can be found)."""

    code = "UNAUTHENTICATED"


class Malformed(HealthStoreError):
    """ErrorCode MALFORMED."""

    code = "MALFORMED"


class FrameTooLarge(HealthStoreError):
    """ErrorCode FRAME_TOO_LARGE."""

    code = "FRAME_TOO_LARGE"


class UnsupportedVersion(HealthStoreError):
    """ErrorCode UNSUPPORTED_VERSION."""

    code = "UNSUPPORTED_VERSION"


class ResourceExhausted(HealthStoreError):
    """ErrorCode RESOURCE_EXHAUSTED."""

    code = "RESOURCE_EXHAUSTED"


class NotFound(HealthStoreError):
    """ErrorCode NOT_FOUND."""

    code = "NOT_FOUND"


class InternalError(HealthStoreError):
    """ErrorCode INTERNAL."""

    code = "INTERNAL"


class AnchorExpired(HealthStoreError):
    """ErrorCode ANCHOR_EXPIRED."""

    code = "ANCHOR_EXPIRED"


class PermissionDenied(HealthStoreError):
    """ErrorCode PERMISSION_DENIED: the caller's role may not make this call."""

    code = "PERMISSION_DENIED"


class InvalidAnchor(HealthStoreError):
    """ErrorCode INVALID_ANCHOR."""

    code = "INVALID_ANCHOR"


class Unavailable(HealthStoreError):
    """ErrorCode UNAVAILABLE, a refused or failed connection, or a long-running call the server ended."""

    code = "UNAVAILABLE"


class TLSError(Unavailable):
    """The TLS handshake or TLS layer failed (untrusted certificate, hostname mismatch, …)."""

    code = "TLS_ERROR"


_BY_CODE: Dict[str, Type[HealthStoreError]] = {
    cls.code: cls
    for cls in (
        HealthDataUnavailable, HealthDataRestricted, InvalidArgument, AuthorizationDenied,
        AuthorizationNotDetermined, DatabaseInaccessible, UserCanceled, NoData, DataSizeExceeded,
        Unauthenticated, Malformed, FrameTooLarge, UnsupportedVersion, ResourceExhausted, NotFound,
        InternalError, AnchorExpired, PermissionDenied, InvalidAnchor, Unavailable,
    )
}


def from_call_ended(call_ended: Any) -> Optional[Unavailable]:
    """None when the client cancelled the call; otherwise the Unavailable error for why the server ended it."""
    if call_ended.reason == pb.END_REASON_CANCELLED:
        return None
    return Unavailable(f"the server ended the call: {pb.EndReason.Name(call_ended.reason)}")


def from_error(error: Any) -> HealthStoreError:
    """The exception for a protobuf `Error` message."""
    name = pb.ErrorCode.Name(error.code) if error.code in pb.ErrorCode.values() else "ERROR_CODE_UNSPECIFIED"
    short = name.replace("ERROR_CODE_", "", 1)
    cls = _BY_CODE.get(short, HealthStoreError)
    return cls(
        error.message,
        object_index=error.object_index if error.has_object_index else None,
        field=error.field or None,
        code=short,
    )


def connect_failed(address: str, exc: BaseException) -> Unavailable:
    """The error for a connection attempt to `address` that failed with `exc`."""
    if isinstance(exc, ssl.SSLError):
        reason = getattr(exc, "verify_message", None) or getattr(exc, "reason", None) or str(exc)
        return TLSError(f"TLS handshake with {address} failed: {reason}")
    if isinstance(exc, TimeoutError):
        return Unavailable(f"cannot connect to {address}: timed out")
    return Unavailable(f"cannot connect to {address}: {getattr(exc, 'strerror', None) or exc}")


def connection_lost(exc: BaseException) -> HealthStoreError:
    """The error for an open connection that failed with `exc` (TLS failures keep their own class)."""
    if isinstance(exc, HealthStoreError):
        return exc
    if isinstance(exc, ssl.SSLError):
        return TLSError(f"TLS connection failed: {getattr(exc, 'reason', None) or exc}")
    return ConnectionClosed(f"connection lost: {getattr(exc, 'strerror', None) or exc}")
