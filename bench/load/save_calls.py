"""Drives a running healthd with a fixed number of single-sample SaveObjects calls from one app
connection (as a load device saves), `--in-flight` calls at a time, for bench/load/profile.sh.

It registers the app, has it request share permission for heart rate and the owner grant it, saves
`--warmup` samples, runs `--mark` (a shell command: the profiler zeroes its counters), saves `--calls`
samples, then runs `--done` (the profiler dumps its counters)."""

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


async def saves(client, calls, in_flight):
    """`calls` saves of one fresh heart-rate sample each, at most `in_flight` outstanding."""
    start = values.now_micros() - 3_600_000_000
    remaining = iter(range(calls))

    async def lane():
        for i in remaining:
            t = start + i * 1_000
            sample = values.quantity_sample("HeartRate", 60 + i % 40, "count/min", t, t)
            await client.call_raw("save_objects", pb.SaveObjects(objects=[sample]), "save_objects")

    await asyncio.gather(*(lane() for _ in range(in_flight)))


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--owner-token", required=True)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--mark", default="")
    parser.add_argument("--done", default="")
    args = parser.parse_args()
    owner = await AsyncClient.connect(args.owner_token, host="127.0.0.1", port=args.port, timeout=600)
    token = await owner.register_app(BUNDLE, "Profile")
    app = await AsyncClient.connect(token, host="127.0.0.1", port=args.port, bundle_id=BUNDLE, timeout=600)
    await app.request_authorization(share=["HeartRate"])
    await owner.decide_authorization(BUNDLE, share=["HeartRate"])
    await owner.close()
    await saves(app, args.warmup, args.in_flight)
    if args.mark:
        subprocess.run(args.mark, shell=True, check=True, stdout=subprocess.DEVNULL)
    await saves(app, args.calls, args.in_flight)
    if args.done:
        subprocess.run(args.done, shell=True, check=True, stdout=subprocess.DEVNULL)
    await app.close()


if __name__ == "__main__":
    asyncio.run(main())
