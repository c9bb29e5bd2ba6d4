"""Frames: a 4-byte big-endian length, then one protobuf message."""

from __future__ import annotations

import struct
from typing import Any, List

from .errors import ConnectionClosed
from .v1 import healthstore_pb2 as pb

DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024


def encode_frame(message: Any) -> bytes:
    """Serialises a protobuf message and prefixes its length."""
    payload: bytes = message.SerializeToString()
    return struct.pack(">I", len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed bytes in any chunks, collect complete payloads."""

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self.max_frame_bytes = max_frame_bytes
        self._buffer = bytearray()

    def feed(self, data: bytes) -> List[bytes]:
        """Adds bytes and returns the complete frame payloads now available (ValueError for a bad length)."""
        self._buffer.extend(data)
        frames = []
        offset = 0
        while len(self._buffer) - offset >= 4:
            (length,) = struct.unpack_from(">I", self._buffer, offset)
            if length == 0 or length > self.max_frame_bytes:
                raise ValueError(f"invalid frame length {length} (maximum {self.max_frame_bytes})")
            if len(self._buffer) - offset - 4 < length:
                break
            frames.append(bytes(self._buffer[offset + 4: offset + 4 + length]))
            offset += 4 + length
        del self._buffer[:offset]
        return frames

    def end_of_stream(self) -> ConnectionClosed:
        """The error for the peer closing the stream, saying whether it stopped in the middle of a frame."""
        if not self._buffer:
            return ConnectionClosed("connection closed by the server")
        return ConnectionClosed(f"connection closed by the server in the middle of a frame ({len(self._buffer)} bytes of it received)")


def decode_server_message(payload: bytes) -> Any:
    """Parses one ServerMessage payload."""
    message = pb.ServerMessage()
    message.ParseFromString(payload)
    return message
