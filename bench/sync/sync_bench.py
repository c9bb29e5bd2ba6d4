"""Read-side benchmark client: fills healthd with the peer benchmark's pre-encoded stream, and times a
full anchored sync (QueryAnchored of all 8 types, no anchor) over a raw socket.

The sync client only reads frames and looks at each frame's top-level fields (call id, `more`), so
the figure is the server's; the same bytes are then decoded with the Python protobuf runtime and
that decode rate is printed beside it, showing how much faster than the server a client can consume
the stream. Each subcommand prints one JSON line."""

import argparse
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "peer"))
from peer_bench import TYPES, frame, healthd_frames, healthd_send, healthd_writer, pb, run_writers  # noqa: E402


def fill(args, token):
    frames = healthd_frames(args.samples, args.batch, args.seed)
    seconds = run_writers(frames, args.writers, lambda: healthd_writer(args.address, token), healthd_send)
    return {"samples": args.samples, "seconds": seconds, "per_second": args.samples / seconds}


def varint(data, i):
    shift = value = 0
    while True:
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i += 1
        if byte < 0x80:
            return value, i
        shift += 7


def top_level(payload):
    """(call_id, more, result field number) from a ServerMessage without decoding its result."""
    i, call_id, more, result = 0, 0, False, None
    while i < len(payload):
        key, i = varint(payload, i)
        field, kind = key >> 3, key & 7
        if kind == 0:
            value, i = varint(payload, i)
            if field == 1:
                call_id = value
            elif field == 2:
                more = value != 0
        elif kind == 2:
            length, i = varint(payload, i)
            result = field
            i += length
        else:
            raise ValueError(f"unexpected wire type {kind} at top level")
    return call_id, more, result


def sync(args, token):
    sock = healthd_writer(args.address, token)
    query = pb.ClientMessage(call_id=7, query_anchored=pb.QueryAnchored(types=[t[0] for t in TYPES]))
    buffer = bytearray(64 << 20)
    view = memoryview(buffer)
    frames, filled = [], 0
    started = time.perf_counter()
    sock.sendall(frame(query))
    more = True
    # Each recv takes at most 1 MiB: the unread rest is moved to the front after every frame, and
    # behind a server faster than this loop one recv could fill all 64 MiB, each frame then moving
    # tens of MiB (the client stalled for over 30 s and healthd dropped it).
    chunk = 1 << 20
    while more:
        while filled < 4:
            filled += sock.recv_into(view[filled:filled + chunk])
        length = struct.unpack_from(">I", buffer, 0)[0]
        if len(buffer) < 4 + length:
            raise RuntimeError(f"frame of {length} bytes is larger than the client's buffer")
        while filled < 4 + length:
            filled += sock.recv_into(view[filled:filled + max(chunk, 4 + length - filled)])
        payload = bytes(view[4:4 + length])
        call_id, more, result = top_level(payload)
        if call_id != 7 or result != 41:
            raise RuntimeError(f"unexpected answer: {pb.ServerMessage.FromString(payload)}")
        frames.append(payload)
        rest = filled - 4 - length
        buffer[:rest] = view[4 + length:filled]
        filled = rest
    seconds = time.perf_counter() - started
    wire_bytes = sum(len(f) + 4 for f in frames)

    decode_started = time.perf_counter()
    samples = deleted = 0
    for payload in frames:
        page = pb.ServerMessage.FromString(payload).anchored
        samples += len(page.samples)
        deleted += len(page.deleted)
    decode_seconds = time.perf_counter() - decode_started
    return {"samples": samples, "deleted": deleted, "frames": len(frames), "bytes": wire_bytes, "seconds": seconds,
            "per_second": samples / seconds, "client_decode_per_second": samples / decode_seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["fill", "sync"])
    parser.add_argument("--address", required=True, help="HOST:PORT")
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    token = open(args.token_file).read().strip()
    print(json.dumps(fill(args, token) if args.command == "fill" else sync(args, token)))


if __name__ == "__main__":
    main()
