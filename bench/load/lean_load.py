"""A lean load generator for bench/load/run.sh (GENERATOR=lean): the same load as healthsim's load mode
(DEVICES connections of one app, each saving RATE single-sample heart-rate batches per second for
DURATION seconds, each device at its own seeded phase of its period, or all in the same tick with
--burst), but with every frame encoded before the run starts and one thread reading all sockets with
epoll, so the generator spends little CPU while it runs and the latency it measures is the server's,
not its own queue's. Writes a report with the fields of healthsim's (`--report`), plus the CPU
seconds the generator used while the devices were sending (`generatorRunCPUSeconds`)."""

import argparse
import asyncio
import json
import os
import random
import resource
import selectors
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))
from healthstore import values  # noqa: E402
from healthstore.aio import AsyncClient  # noqa: E402
from healthstore.framing import encode_frame  # noqa: E402
from healthstore.protocol import call_frame, hello_message  # noqa: E402
from healthstore.v1 import healthstore_pb2 as pb  # noqa: E402

BUNDLE = "com.bench.lean"
HELLO_WAVE = 50  # below the server's unauthenticated connections per address


async def app_token(port, owner_token):
    """Registers the load app and has it ask for heart-rate sharing (granted under allow-all)."""
    owner = await AsyncClient.connect(owner_token, host="127.0.0.1", port=port, timeout=600)
    token = await owner.register_app(BUNDLE, "Lean Load")
    app = await AsyncClient.connect(token, host="127.0.0.1", port=port, bundle_id=BUNDLE, timeout=600)
    await app.request_authorization(share=["HeartRate"])
    await owner.decide_authorization(BUNDLE, share=["HeartRate"])
    await app.close()
    await owner.close()
    return token


def read_frame(sock, buffer):
    """One whole frame's payload from a blocking socket; `buffer` keeps what follows it."""
    while True:
        if len(buffer) >= 4:
            (length,) = struct.unpack_from(">I", buffer)
            if len(buffer) >= 4 + length:
                payload = bytes(buffer[4:4 + length])
                del buffer[:4 + length]
                return payload
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed a device connection during its Hello")
        buffer += chunk


def connect_devices(port, token, count):
    """`count` sockets, each with its Hello accepted (as its own device), in waves."""
    sockets = []
    for wave in range(0, count, HELLO_WAVE):
        batch = []
        for index in range(wave, min(count, wave + HELLO_WAVE)):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            device = {"name": f"Lean Sensor {index}", "manufacturer": "bench", "local_identifier": f"lean-{index}"}
            sock.sendall(call_frame(1, "hello", hello_message(token, BUNDLE, "Lean Load", "1.0", default_device=device)))
            batch.append(sock)
        for sock in batch:
            answer = pb.ServerMessage.FromString(read_frame(sock, bytearray()))
            if answer.WhichOneof("result") != "hello":
                raise RuntimeError(f"Hello refused: {answer}")
        sockets.extend(batch)
    return sockets


def encode_saves(devices, ticks, period, seed):
    """Every device's frames, in call order (call ids from 2), with seeded UUIDs and times."""
    rng = random.Random(seed)
    start = values.now_micros() - ticks * int(period * 1e6)
    frames = []
    for device in range(devices):
        own = []
        for tick in range(ticks):
            # One start time a tick for every device, as healthsim's load mode: a per-device offset sent at a
            # random phase put each commit's samples_by_source entries at random in the tick's leaves.
            t = start + tick * int(period * 1e6)
            sample = values.quantity_sample("HeartRate", round(rng.gauss(72, 8)), "count/min", t, t,
                                            uuid=rng.getrandbits(128).to_bytes(16, "big"))
            message = pb.ClientMessage(call_id=2 + tick)
            message.save_objects.objects.append(sample)
            own.append(encode_frame(message))
        frames.append(own)
    return frames


def thread_ticks(pid):
    """{thread id: (name, user clock ticks, system clock ticks)} of process `pid`'s threads."""
    ticks = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as file:
                stat = file.read()
        except OSError:  # the thread ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[task] = (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]), int(fields[12]))
    return ticks


def ticks_by_name(before, after):
    """{thread name: [user, system] clock ticks} used between two `thread_ticks`, threads of one name
    added up (a thread that ended in between is left out)."""
    used = {}
    for task, (name, user, system) in after.items():
        _, user_before, system_before = before.get(task, (name, 0, 0))
        entry = used.setdefault(name, [0, 0])
        entry[0] += user - user_before
        entry[1] += system - system_before
    return used


def percentile(sorted_values, fraction):
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def run(sockets, frames, ticks, period, burst, seed, drain_seconds):
    """Sends every frame at its time and reads the answers; returns (latencies s, each with the second of
    the run it was sent in, rejected by code, generated)."""
    rng = random.Random(seed + 1)
    phases = [0.0 if burst else rng.uniform(0, period) for _ in sockets]
    schedule = sorted((phases[device] + tick * period, device, tick) for device in range(len(sockets)) for tick in range(ticks))
    selector = selectors.DefaultSelector()
    for device, sock in enumerate(sockets):
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, device)
    buffers = [bytearray() for _ in sockets]
    sent_at = {}
    latencies, rejected = [], {}
    generated = 0
    begin = time.monotonic()
    next_send = 0
    deadline = None
    while next_send < len(schedule) or sent_at:
        now = time.monotonic()
        while next_send < len(schedule) and begin + schedule[next_send][0] <= now:
            _, device, tick = schedule[next_send]
            next_send += 1
            try:
                sockets[device].send(frames[device][tick])  # a few hundred bytes: the socket buffer takes it whole
            except BlockingIOError:
                rejected["GENERATOR_BLOCKED"] = rejected.get("GENERATOR_BLOCKED", 0) + 1
                continue
            sent_at[(device, 2 + tick)] = now
            generated += 1
        if next_send == len(schedule) and deadline is None:
            deadline = now + drain_seconds
        if deadline is not None and now > deadline:
            break
        timeout = max(0.0, begin + schedule[next_send][0] - now) if next_send < len(schedule) else deadline - now
        for key, _ in selector.select(timeout):
            device = key.data
            chunk = key.fileobj.recv(65536)
            if not chunk:
                raise ConnectionError(f"the server closed device {device}'s connection")
            received = time.monotonic()
            buffer = buffers[device]
            buffer += chunk
            while len(buffer) >= 4:
                (length,) = struct.unpack_from(">I", buffer)
                if len(buffer) < 4 + length:
                    break
                answer = pb.ServerMessage.FromString(bytes(buffer[4:4 + length]))
                del buffer[:4 + length]
                started = sent_at.pop((device, answer.call_id), None)
                if started is None:
                    continue
                if answer.WhichOneof("result") == "save_objects":
                    latencies.append((received - started, int(started - begin)))
                else:
                    code = pb.ErrorCode.Name(answer.error.code) if answer.WhichOneof("result") == "error" else answer.WhichOneof("result")
                    rejected[code] = rejected.get(code, 0) + 1
    return latencies, rejected, generated, time.monotonic() - begin


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--owner-token-file", required=True)
    parser.add_argument("--devices", type=int, default=100)
    parser.add_argument("--rate", type=float, default=1.0, help="samples per second per device")
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--burst", action="store_true", help="all devices send in the same tick")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drain-seconds", type=float, default=30.0)
    parser.add_argument("--report", required=True)
    parser.add_argument("--server-pid", type=int, help="also report this process's CPU per thread while the devices send")
    args = parser.parse_args()
    with open(args.owner_token_file) as file:
        token = asyncio.run(app_token(args.port, file.read().strip()))
    period = 1.0 / args.rate
    ticks = max(1, round(args.duration * args.rate))
    sockets = connect_devices(args.port, token, args.devices)
    frames = encode_saves(args.devices, ticks, period, args.seed)
    server_before = thread_ticks(args.server_pid) if args.server_pid else {}
    cpu_before = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    latencies, rejected, generated, elapsed = run(sockets, frames, ticks, period, args.burst, args.seed, args.drain_seconds)
    cpu = sum(resource.getrusage(resource.RUSAGE_SELF)[:2]) - cpu_before
    server_after = thread_ticks(args.server_pid) if args.server_pid else {}
    by_second = {}
    for latency, second in latencies:
        by_second.setdefault(second, []).append(latency)
    latencies = sorted(latency for latency, _ in latencies)
    report = {
        "samplesGenerated": generated, "samplesAcknowledged": len(latencies), "batches": generated,
        "throughputPerSecond": len(latencies) / elapsed if elapsed > 0 else 0.0,
        "saveLatencyMs": {"p50": 1e3 * percentile(latencies, 0.5), "p99": 1e3 * percentile(latencies, 0.99)},
        "rejectedByCode": rejected, "generatorRunCPUSeconds": cpu,
        # Whether the tail is a few bad seconds (a start-up, a stall) or spread over the run.
        "saveLatencyP99MsBySecond": [1e3 * percentile(sorted(by_second.get(second, [])), 0.99)
                                     for second in range(max(by_second, default=-1) + 1)],
    }
    if args.server_pid:
        # Only the seconds the devices were sending: connection setup and Hellos left out.
        report["serverRunTicks"] = ticks_by_name(server_before, server_after)
    with open(args.report, "w") as out:
        json.dump(report, out)
    for sock in sockets:
        sock.close()


if __name__ == "__main__":
    main()
