#!/usr/bin/env python3
"""Streams heart-rate and step samples from N simulated devices, one connection each.

    python3 examples/stream_devices.py --devices 20 --seconds 10 --token-file data/owner.token

The server is --server (HOST:PORT or unix:PATH), else $HEALTHSTORE_SERVER, else 127.0.0.1:7420;
the owner token --token-file, else $HEALTHSTORE_TOKEN_FILE, else ./data/owner.token.

Each device registers its own app through the owner token, gets share permission, then saves a
batch of samples every --interval seconds. Prints a summary table at the end.
"""

import argparse
import os
import random
import threading
import time

from healthstore import Client, errors, values as v
from healthstore.connection import read_token_file

HR = "HeartRate"
STEPS = "StepCount"


def device_loop(args, owner_token, index, totals, lock):
    bundle = f"org.example.stream.device{index}"
    with Client.connect(owner_token, server=args.server) as owner:
        try:
            token = owner.register_app(bundle, f"Stream Device {index}")
        except errors.HealthStoreError:
            token = owner.rotate_app_token(bundle)
        owner.decide_authorization(bundle, share=[HR, STEPS])
    rng = random.Random(index)
    device = {"name": f"Band {index}", "manufacturer": "Example", "model": "B1", "local_identifier": f"band-{index}"}
    saved = 0
    with Client.connect(token, server=args.server, bundle_id=bundle, version="1.0", default_device=device) as app:
        app.request_authorization(share=[HR, STEPS])
        deadline = time.time() + args.seconds
        while time.time() < deadline:
            now = v.now_micros()
            batch = [v.quantity_sample(HR, rng.gauss(70, 8), "count/min", now - i * 1_000_000) for i in range(args.batch)]
            batch.append(v.quantity_sample(STEPS, rng.randint(0, 30), "count", now - 10_000_000, now))
            app.save(batch)
            saved += len(batch)
            time.sleep(args.interval)
    with lock:
        totals[bundle] = saved


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", help="HOST:PORT or unix:PATH (default: $HEALTHSTORE_SERVER, then 127.0.0.1:7420)")
    parser.add_argument("--token-file", default=os.environ.get("HEALTHSTORE_TOKEN_FILE", "data/owner.token"))
    parser.add_argument("--devices", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--batch", type=int, default=10, help="heart-rate samples per batch")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between batches")
    args = parser.parse_args()
    owner_token = read_token_file(args.token_file)
    totals, lock = {}, threading.Lock()
    started = time.time()
    threads = [threading.Thread(target=device_loop, args=(args, owner_token, i, totals, lock)) for i in range(args.devices)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started
    total = sum(totals.values())
    print(f"{'device':<36} {'samples':>8}")
    for bundle, count in sorted(totals.items()):
        print(f"{bundle:<36} {count:>8}")
    print(f"{'total':<36} {total:>8}  ({total / elapsed:.0f} samples/s over {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
