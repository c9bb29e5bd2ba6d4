"""Frames: a 4-byte big-endian length, then one protobuf message."""

import struct

from .v1 import healthstore_pb2 as pb

DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024


def encode_frame(message):
    """Serialises a protobuf message and prefixes its length."""
    payload = message.SerializeToString()
    return struct.pack(">I", len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed bytes in any chunks, collect complete payloads."""

    def __init__(self, max_frame_bytes=DEFAULT_MAX_FRAME_BYTES):
        self.max_frame_bytes = max_frame_bytes
        self._buffer = bytearray()

    def feed(self, data):
        """Adds bytes and returns the list of complete frame payloads now available."""
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


def decode_server_message(payload):
    """Parses one ServerMessage payload."""
    message = pb.ServerMessage()
    message.ParseFromString(payload)
    return message
