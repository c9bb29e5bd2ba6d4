"""Drives a running healthd with a fixed number of single-sample SaveObjects calls from one app
connection (as a load device saves), `--in-flight` calls at a time, for bench/load/profile.sh.

It registers the app, has it request share permission for heart rate and the owner grant it, saves
`--warmup` samples, runs `--mark` (a shell command: the profiler zeroes its counters), saves `--calls`
samples, then runs `--done` (the profiler dumps its counters). `--per-connection N` has every N saves
come over a new connection, as load devices that connect for a few saves do: connection set-up and
Hello then count in the calls' instructions."""

import argparse
import asyncio
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
from healthstore import values  # noqa: E402
from healthstore.aio import AsyncClient  # noqa: E402
from healthstore.v1 import healthstore_pb2 as pb  # noqa: E402

BUNDLE = "com.bench.profile"


async def saves(client, calls, in_flight, per_connection=0, connect=None):
    """`calls` saves of one fresh heart-rate sample each, at most `in_flight` outstanding. With
    `per_connection`, each lane saves over its own connections instead, opening a new one (a Hello
    with the same token) every `per_connection` saves and closing the last."""
    start = values.now_micros() - 3_600_000_000
    remaining = iter(range(calls))

    async def lane():
        lane_client, made = (None, 0) if per_connection else (client, 0)
        for i in remaining:
            if per_connection and made % per_connection == 0:
                if lane_client:
                    await lane_client.close()
                lane_client = await connect()
            made += 1
            t = start + i * 1_000
            sample = values.quantity_sample("HeartRate", 60 + i % 40, "count/min", t, t)
            await lane_client.call_raw("save_objects", pb.SaveObjects(objects=[sample]), "save_objects")
        if per_connection and lane_client:
            await lane_client.close()

    await asyncio.gather(*(lane() for _ in range(in_flight)))


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--owner-token", required=True)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--per-connection", type=int, default=0,
                        help="saves per connection: each lane connects (and says Hello) again after this many; 0: one connection")
    parser.add_argument("--mark", default="")
    parser.add_argument("--done", default="")
    args = parser.parse_args()
    owner = await AsyncClient.connect(args.owner_token, host="127.0.0.1", port=args.port, timeout=600)
    token = await owner.register_app(BUNDLE, "Profile")
    app = await AsyncClient.connect(token, host="127.0.0.1", port=args.port, bundle_id=BUNDLE, timeout=600)
    await app.request_authorization(share=["HeartRate"])
    await owner.decide_authorization(BUNDLE, share=["HeartRate"])
    await owner.close()
    def connect():
        return AsyncClient.connect(token, host="127.0.0.1", port=args.port, bundle_id=BUNDLE, timeout=600)

    await saves(app, args.warmup, args.in_flight, args.per_connection, connect)
    if args.mark:
        subprocess.run(args.mark, shell=True, check=True, stdout=subprocess.DEVNULL)
    await saves(app, args.calls, args.in_flight, args.per_connection, connect)
    if args.done:
        subprocess.run(args.done, shell=True, check=True, stdout=subprocess.DEVNULL)
    await app.close()


if __name__ == "__main__":
    asyncio.run(main())
