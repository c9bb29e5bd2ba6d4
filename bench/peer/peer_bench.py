"""Ingest peer benchmark: one generated stream of quantity samples written to healthd (the binary
protocol, SaveObjects) and to InfluxDB 1.x (line protocol over HTTP), with the same writer count
and batch size, both pre-encoded before the clock starts so client CPU does not dominate.
healthd's writers may be spread over several nodes (--address A,B: writer i uses address i mod n).
--engine copy is PostgreSQL's raw limit for the same rows: one psql session COPYing them, one
transaction per batch, into a table with the samples table's columns and indexes.

The stream: 8 quantity types, 20 devices, one reading per device and type per second, random
UUIDs (healthd) / one series per device and type (InfluxDB). Prints samples/s per engine as one
JSON line per run; bench/peer/run.sh starts the servers and prints the table."""

import argparse
import http.client
import itertools
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
from healthstore.v1 import healthstore_pb2 as pb  # noqa: E402

# (type, unit, typical value, spread): values stay inside every type's valid range.
TYPES = [
    ("HKQuantityTypeIdentifierHeartRate", "count/min", 70.0, 15.0),
    ("HKQuantityTypeIdentifierStepCount", "count", 12.0, 6.0),
    ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal", 0.8, 0.3),
    ("HKQuantityTypeIdentifierDistanceWalkingRunning", "m", 1.2, 0.4),
    ("HKQuantityTypeIdentifierOxygenSaturation", "%", 0.97, 0.01),
    ("HKQuantityTypeIdentifierRespiratoryRate", "count/min", 15.0, 2.0),
    ("HKQuantityTypeIdentifierBodyTemperature", "degC", 36.8, 0.2),
    ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "ms", 45.0, 10.0),
]
DEVICES = 20
SECOND = 1_000_000


def readings(count, seed):
    """`count` (type index, device, time µs, value) tuples, one per device and type per second,
    ending a minute ago."""
    rng = random.Random(seed)
    per_second = len(TYPES) * DEVICES
    seconds = -(-count // per_second)
    start = (int(time.time()) - 60 - seconds) * SECOND
    produced = 0
    for s in range(seconds):
        t = start + s * SECOND
        for device in range(DEVICES):
            for k, (_, _, mean, spread) in enumerate(TYPES):
                if produced == count:
                    return
                value = max(0.0, rng.gauss(mean, spread / 3))
                if k == 4:
                    value = min(1.0, value)
                yield k, device, t, round(value, 3)
                produced += 1


def healthd_frames(count, batch, seed):
    """Length-prefixed SaveObjects frames of `batch` samples each."""
    devices = [pb.Device(name=f"Bench Watch {d}", manufacturer="HealthStore", model="BW-1",
                         local_identifier=f"bench-{d}") for d in range(DEVICES)]
    rng = random.Random(seed + 1)
    frames, objects, call_id = [], [], 1
    for k, device, t, value in readings(count, seed):
        type_id, unit, _, _ = TYPES[k]
        sample = pb.Sample(uuid=rng.randbytes(16), type=type_id, start_time=t, end_time=t)
        sample.device.CopyFrom(devices[device])
        sample.quantity.quantity.value = value
        sample.quantity.quantity.unit = unit
        objects.append(sample)
        if len(objects) == batch:
            frames.append(frame(pb.ClientMessage(call_id=call_id, save_objects=pb.SaveObjects(objects=objects))))
            objects, call_id = [], call_id + 1
    if objects:
        frames.append(frame(pb.ClientMessage(call_id=call_id, save_objects=pb.SaveObjects(objects=objects))))
    return frames


COPY_COLUMNS = "owner, anchor, uuid, type, start_time, value, source, revision, device"


def copy_script(count, batch, seed):
    """A psql script that creates `raw_samples` like healthd's samples table (columns, defaults,
    generated columns, indexes) and COPYs the same rows (same UUIDs) into it, one COPY per batch.
    Owner, type, source, revision and device are the small ids healthd's interned tables would give."""
    rng = random.Random(seed + 1)
    parts = ["\\set ON_ERROR_STOP on\n",
             "CREATE TABLE raw_samples (LIKE samples INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING INDEXES);\n"]
    rows = []
    for anchor, (k, device, t, value) in enumerate(readings(count, seed), start=1):
        rows.append(f"1\t{anchor}\t\\\\x{rng.randbytes(16).hex()}\t{k + 1}\t{t}\t{value}\t1\t1\t{device + 1}\n")
        if len(rows) == batch:
            parts += [f"COPY raw_samples ({COPY_COLUMNS}) FROM STDIN;\n", *rows, "\\.\n"]
            rows = []
    if rows:
        parts += [f"COPY raw_samples ({COPY_COLUMNS}) FROM STDIN;\n", *rows, "\\.\n"]
    return "".join(parts).encode()


def copy_run(url, script):
    """Runs the script through one psql session; returns seconds."""
    started = time.perf_counter()
    subprocess.run(["psql", "--quiet", "--no-psqlrc", "--dbname", url, "--file", "-"], input=script, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def influx_bodies(count, batch, seed):
    """Line-protocol bodies of `batch` points each (timestamps in µs)."""
    bodies, lines = [], []
    names = [t[0].removeprefix("HKQuantityTypeIdentifier") for t in TYPES]
    for k, device, t, value in readings(count, seed):
        lines.append(f"{names[k]},device=bench-{device} value={value} {t}")
        if len(lines) == batch:
            bodies.append(("\n".join(lines)).encode())
            lines = []
    if lines:
        bodies.append(("\n".join(lines)).encode())
    return bodies


def frame(message):
    payload = message.SerializeToString()
    return struct.pack(">I", len(payload)) + payload


def read_frame(sock):
    header = read_exactly(sock, 4)
    message = pb.ServerMessage()
    message.ParseFromString(read_exactly(sock, struct.unpack(">I", header)[0]))
    return message


def read_exactly(sock, n):
    chunks, remaining = [], n
    while remaining:
        chunk = sock.recv(remaining)
        if not chunk:
            raise ConnectionError("healthd closed the connection")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def healthd_writer(address, token):
    """A connected, authenticated socket to healthd."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    hello = pb.ClientMessage(call_id=0, hello=pb.Hello(protocol_version=1, token=token))
    hello.hello.source_revision.version = "1"
    sock.sendall(frame(hello))
    answer = read_frame(sock)
    if answer.WhichOneof("result") != "hello":
        raise RuntimeError(f"Hello refused: {answer}")
    return sock


def run_writers(items, writers, connect, send):
    """Sends `items` over `writers` connections, one request in flight per connection; returns seconds."""
    connections = [connect() for _ in range(writers)]
    next_item = iter(range(len(items)))
    lock = threading.Lock()
    failures = []

    def work(connection):
        while True:
            with lock:
                index = next(next_item, None)
            if index is None or failures:
                return
            try:
                send(connection, items[index])
            except Exception as error:  # reported after the run
                failures.append(error)
                return

    threads = [threading.Thread(target=work, args=(c,)) for c in connections]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    if failures:
        raise failures[0]
    return seconds


def healthd_send(sock, data):
    sock.sendall(data)
    answer = read_frame(sock)
    if answer.WhichOneof("result") != "save_objects":
        raise RuntimeError(f"save refused: {answer.error.message if answer.HasField('error') else answer}")


def influx_send(connection, body):
    connection.request("POST", "/write?db=bench&precision=u", body=body)
    response = connection.getresponse()
    response.read()
    if response.status != 204:
        raise RuntimeError(f"InfluxDB answered {response.status}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engine", choices=["healthd", "influxdb", "copy"], required=True)
    parser.add_argument("--address", required=True, help="HOST:PORT (healthd: HOST:PORT,HOST:PORT,… spreads the "
                        "writers over the nodes); copy: the PostgreSQL URL")
    parser.add_argument("--token-file", help="healthd: owner token")
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    prepared = time.perf_counter()
    if args.engine == "copy":
        script = copy_script(args.samples, args.batch, args.seed)
        encode_seconds = time.perf_counter() - prepared
        seconds = copy_run(args.address, script)
    else:
        if args.engine == "healthd":
            token = open(args.token_file).read().strip()
            items = healthd_frames(args.samples, args.batch, args.seed)
            addresses = itertools.cycle(args.address.split(","))
            connect, send = (lambda: healthd_writer(next(addresses), token)), healthd_send
        else:
            host, port = args.address.rsplit(":", 1)
            items = influx_bodies(args.samples, args.batch, args.seed)
            connect, send = (lambda: http.client.HTTPConnection(host, int(port), timeout=600)), influx_send
        encode_seconds = time.perf_counter() - prepared
        seconds = run_writers(items, args.writers, connect, send)
    print(json.dumps({"engine": args.engine, "samples": args.samples, "seconds": seconds,
                      "per_second": args.samples / seconds, "encode_seconds": encode_seconds}))

if __name__ == "__main__":
    main()
