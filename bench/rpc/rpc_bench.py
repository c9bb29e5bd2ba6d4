"""RPC benchmark against a running healthd: calls/s and p50/p99 latency for Ping and for SaveObjects
of 1, 100 and 1000 samples, over 1, 10 and 100 connections (each connection keeps one call in flight).

The client is Python (asyncio, one process): for large batches or many connections it can be the
bottleneck; the "client CPU" column shows how busy it was (near 100 % = client-bound)."""

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
from healthstore import values  # noqa: E402
from healthstore.aio import AsyncClient  # noqa: E402
from healthstore.v1 import healthstore_pb2 as pb  # noqa: E402


def save_request(batch):
    """A SaveObjects message of `batch` heart-rate samples; UUIDs are refreshed before each call."""
    end = values.now_micros() - 60_000_000
    samples = [values.quantity_sample("HeartRate", 60 + i % 40, "count/min", end - 1_000_000, end) for i in range(batch)]
    return pb.SaveObjects(objects=samples)


async def worker(client, kind, batch, deadline, latencies):
    request = save_request(batch) if kind == "save" else pb.Ping(payload=b"x" * 16)
    while time.perf_counter() < deadline:
        if kind == "save":
            for sample in request.objects:
                sample.uuid = os.urandom(16)
        start = time.perf_counter()
        # The raw call reuses one request message, so the figures measure the RPC, not request building.
        if kind == "save":
            await client.call_raw("save_objects", request, "save_objects")
        else:
            await client.call_raw("ping", request, "pong")
        latencies.append(time.perf_counter() - start)


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(p * len(sorted_values)))]


async def cell(args, kind, batch, connections):
    clients = [await AsyncClient.connect(args.token, host=args.host, port=args.port, bundle_id="", name="")
               for _ in range(connections)]
    latencies = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    deadline = wall0 + args.duration
    await asyncio.gather(*(worker(c, kind, batch, deadline, latencies) for c in clients))
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    for client in clients:
        await client.close()
    latencies.sort()
    calls = len(latencies)
    name = "Ping" if kind == "ping" else f"SaveObjects x{batch}"
    print(f"{name:<20} {connections:>5} {calls / wall:>10.0f} {calls * batch / wall:>12.0f} "
          f"{percentile(latencies, 0.50) * 1000:>9.2f} {percentile(latencies, 0.99) * 1000:>9.2f} {100 * cpu / wall:>10.0f}%",
          flush=True)


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7420)
    parser.add_argument("--token", required=True)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--connections", default="1,10,100")
    parser.add_argument("--batches", default="1,100,1000")
    args = parser.parse_args()
    connections = [int(n) for n in args.connections.split(",")]
    print(f"{'call':<20} {'conns':>5} {'calls/s':>10} {'objects/s':>12} {'p50 ms':>9} {'p99 ms':>9} {'client CPU':>11}")
    for n in connections:
        await cell(args, "ping", 1, n)
    for batch in (int(b) for b in args.batches.split(",")):
        for n in connections:
            await cell(args, "save", batch, n)


if __name__ == "__main__":
    asyncio.run(main())
