"""Typed exceptions mapped from the protocol's ErrorCode values."""

from .v1 import healthstore_pb2 as pb


class HealthStoreError(Exception):
    """A call failed; `code` is the protocol ErrorCode name without prefix (e.g. "INVALID_ARGUMENT")."""

    code = "UNKNOWN"

    def __init__(self, message, object_index=None, field=None, code=None):
        super().__init__(message)
        self.message = message
        self.object_index = object_index
        self.field = field
        if code is not None:
            self.code = code

    def __str__(self):
        text = f"{self.code}: {self.message}"
        if self.field:
            text += f" [field {self.field}]"
        if self.object_index is not None:
            text += f" [object {self.object_index}]"
        return text


class ConnectionClosed(HealthStoreError):
    """The connection ended before the call was answered."""

    code = "CONNECTION_CLOSED"


def _define(name, code):
    return type(name, (HealthStoreError,), {"code": code, "__doc__": f"ErrorCode {code}."})


HealthDataUnavailable = _define("HealthDataUnavailable", "HEALTH_DATA_UNAVAILABLE")
HealthDataRestricted = _define("HealthDataRestricted", "HEALTH_DATA_RESTRICTED")
InvalidArgument = _define("InvalidArgument", "INVALID_ARGUMENT")
AuthorizationDenied = _define("AuthorizationDenied", "AUTHORIZATION_DENIED")
AuthorizationNotDetermined = _define("AuthorizationNotDetermined", "AUTHORIZATION_NOT_DETERMINED")
DatabaseInaccessible = _define("DatabaseInaccessible", "DATABASE_INACCESSIBLE")
UserCanceled = _define("UserCanceled", "USER_CANCELED")
NoData = _define("NoData", "NO_DATA")
DataSizeExceeded = _define("DataSizeExceeded", "DATA_SIZE_EXCEEDED")
Unauthenticated = _define("Unauthenticated", "UNAUTHENTICATED")
Malformed = _define("Malformed", "MALFORMED")
FrameTooLarge = _define("FrameTooLarge", "FRAME_TOO_LARGE")
UnsupportedVersion = _define("UnsupportedVersion", "UNSUPPORTED_VERSION")
ResourceExhausted = _define("ResourceExhausted", "RESOURCE_EXHAUSTED")
NotFound = _define("NotFound", "NOT_FOUND")
InternalError = _define("InternalError", "INTERNAL")
AnchorExpired = _define("AnchorExpired", "ANCHOR_EXPIRED")
PermissionDenied = _define("PermissionDenied", "PERMISSION_DENIED")
InvalidAnchor = _define("InvalidAnchor", "INVALID_ANCHOR")
Unavailable = _define("Unavailable", "UNAVAILABLE")

_BY_CODE = {
    cls.code: cls
    for cls in (
        HealthDataUnavailable, HealthDataRestricted, InvalidArgument, AuthorizationDenied,
        AuthorizationNotDetermined, DatabaseInaccessible, UserCanceled, NoData, DataSizeExceeded,
        Unauthenticated, Malformed, FrameTooLarge, UnsupportedVersion, ResourceExhausted, NotFound,
        InternalError, AnchorExpired, PermissionDenied, InvalidAnchor, Unavailable,
    )
}


def from_call_ended(call_ended):
    """None when the client cancelled the call; otherwise the Unavailable error for why the server ended it."""
    if call_ended.reason == pb.END_REASON_CANCELLED:
        return None
    return Unavailable(f"the server ended the call: {pb.EndReason.Name(call_ended.reason)}")


def from_error(error):
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
