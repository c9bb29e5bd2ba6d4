"""Interop: the Python client (generated from proto/ alone) against a real healthd, and the Swift
tools reading what Python saved."""

import asyncio
import json
import socket
import struct
import uuid

import pytest

from healthstore import AsyncClient, Client, encode_frame, errors, pb, series, values as v

HR = "HKQuantityTypeIdentifierHeartRate"
STEPS = "HKQuantityTypeIdentifierStepCount"
SYS = "HKQuantityTypeIdentifierBloodPressureSystolic"
DIA = "HKQuantityTypeIdentifierBloodPressureDiastolic"
BP = "HKCorrelationTypeIdentifierBloodPressure"
SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
WORKOUT = "HKWorkoutTypeIdentifier"
ENERGY = "HKQuantityTypeIdentifierActiveEnergyBurned"

T0 = 1_780_000_000_000_000  # 2026-05-28T20:26:40Z
MIN = 60_000_000


def uid(message):
    """The UUID of a sample message built with `values`."""
    return uuid.UUID(bytes=message.uuid)


def test_ping_frame_bytes_match_the_documented_frame():
    frame = encode_frame(pb.ClientMessage(call_id=1, ping=pb.Ping(payload=b"hi")))
    assert frame.hex(" ") == "00 00 00 08 08 01 5a 04 0a 02 68 69"


def test_hello_reports_role_and_limits(server, owner):
    hello = owner.hello_result
    assert hello.role == "OWNER" and hello.raw.role == pb.ROLE_OWNER
    assert hello.protocol_version == 1
    assert hello.max_frame_bytes >= 1024 * 1024
    pong = owner.ping(b"abc")
    assert pong.payload == b"abc" and pong.server_time > 0


def test_unix_socket_and_asyncio_client(server):
    async def run():
        client = await AsyncClient.connect(server.owner_token, unix_path=server.unix_path)
        try:
            pongs = await asyncio.gather(*(client.ping(bytes([i])) for i in range(20)))
            assert [p.payload for p in pongs] == [bytes([i]) for i in range(20)]
        finally:
            await client.close()

    asyncio.run(run())


def test_wrong_token_is_refused_and_closed(server):
    with pytest.raises(errors.Unauthenticated):
        Client.connect("not-a-real-token", port=server.port)


def test_pipelined_calls_are_matched_by_call_id(owner):
    pending = [owner.submit("ping", pb.Ping(payload=str(i).encode()), "pong") for i in range(200)]
    assert [p.result(10).payload for p in pending] == [str(i).encode() for i in range(200)]


def every_kind(device):
    hr = v.quantity_sample(HR, 72, "count/min", T0, T0, device=device, metadata={"HKWasUserEntered": False, "note": "py"})
    steps = v.quantity_sample(STEPS, 120, "count", T0, T0 + MIN, device=device)
    sleep = v.category_sample(SLEEP, 4, T0 - 60 * MIN, T0 - 30 * MIN, device=device)
    bp = v.correlation(BP, [v.quantity_sample(SYS, 121, "mmHg", T0), v.quantity_sample(DIA, 79, "mmHg", T0)], T0)
    run = v.workout(37, T0, T0 + 30 * MIN, device=device,
                    events=[pb.WorkoutEvent(type=pb.WORKOUT_EVENT_TYPE_PAUSE, start_time=T0 + 10 * MIN, end_time=T0 + 10 * MIN),
                            pb.WorkoutEvent(type=pb.WORKOUT_EVENT_TYPE_RESUME, start_time=T0 + 12 * MIN, end_time=T0 + 12 * MIN)],
                    statistics=[pb.WorkoutStatistic(quantity_type=ENERGY, sum=pb.Quantity(value=250, unit="kcal"))])
    return hr, steps, sleep, bp, run


def test_every_object_kind_saved_from_python_reads_back_in_python_and_in_healthctl(server, new_app):
    types = [HR, STEPS, SLEEP, SYS, DIA, WORKOUT]
    app = new_app(share=types, read=types)
    device = pb.Device(name="Py Watch", manufacturer="Example", model="PW1", local_identifier="py-1")
    objects = every_kind(device)
    assert app.save(objects) == ["STORED"] * 5

    # Python reads them back with the server-stamped source revision and the device.
    got = {s.uuid: s for s in app.samples(HR, STEPS, SLEEP, WORKOUT)}
    for original in (objects[0], objects[1], objects[2], objects[4]):
        stored = got[uid(original)]
        assert stored.start_time == original.start_time and stored.end_time == original.end_time
        assert stored.source_revision.source.bundle_id == app.bundle_id
        assert stored.source_revision.version == "1.0"
        assert stored.device.name == "Py Watch"
    heart = got[uid(objects[0])].quantity
    per_minute = {"count/min": 1.0, "count/s": 60.0}[heart.unit]
    assert heart.value * per_minute == pytest.approx(72, rel=1e-9)
    assert got[uid(objects[0])].metadata == {"HKWasUserEntered": False, "note": "py"}
    assert got[uid(objects[2])].category == 4
    assert got[uid(objects[4])].workout.activity_type == 37
    assert [e.type for e in got[uid(objects[4])].workout.events] == ["PAUSE", "RESUME"]
    assert got[uid(objects[0])].raw.uuid == objects[0].uuid, "the protobuf message stays reachable"
    bps = app.correlations(BP)
    assert [c.uuid for c in bps] == [uid(objects[3])]
    assert sorted(round(c.quantity.value) for c in bps[0].objects) == [79, 121]

    # Swift's healthctl sees the same objects, with the same UUIDs, values and source.
    for type_name, original in ((HR, objects[0]), (STEPS, objects[1]), (SLEEP, objects[2]), (WORKOUT, objects[4])):
        rows = json.loads(server.healthctl("samples", "--type", type_name, "--source", app.bundle_id, "--format", "json"))
        by_uuid = {row["uuid"].lower(): row for row in rows}
        assert str(uuid.UUID(bytes=original.uuid)) in by_uuid, f"{type_name}: {rows}"
    hr_row = {r["uuid"].lower(): r for r in json.loads(server.healthctl("samples", "--type", "HeartRate", "--format", "json"))}[
        str(uuid.UUID(bytes=objects[0].uuid))]
    assert json.dumps(hr_row).find(app.bundle_id) >= 0


def test_retry_is_idempotent_and_conflicting_uuid_is_rejected(new_app):
    app = new_app(share=[STEPS], read=[STEPS])
    sample = v.quantity_sample(STEPS, 10, "count", T0, T0 + MIN)
    assert app.save([sample]) == ["STORED"]
    assert app.save([sample]) == ["ALREADY_STORED"]
    changed = pb.Sample()
    changed.CopyFrom(sample)
    changed.quantity.quantity.value = 11
    with pytest.raises(errors.InvalidArgument):
        app.save([changed])


def test_validation_errors_name_the_object_and_store_nothing(new_app):
    app = new_app(share=[HR], read=[HR])
    good = v.quantity_sample(HR, 60, "count/min", T0 + 5 * MIN)
    bad_unit = v.quantity_sample(HR, 60, "kg", T0 + 6 * MIN)
    with pytest.raises(errors.InvalidArgument) as info:
        app.save([good, bad_unit])
    assert info.value.object_index == 1
    backwards = v.quantity_sample(HR, 60, "count/min", T0 + 10 * MIN, T0 + 9 * MIN)
    with pytest.raises(errors.InvalidArgument) as info:
        app.save([good, backwards])
    assert info.value.object_index == 1
    unknown = v.quantity_sample("HKQuantityTypeIdentifierNoSuchThing", 1, "count", T0)
    with pytest.raises(errors.InvalidArgument):
        app.save([unknown])
    assert app.samples(HR, predicate=v.date_range(T0 + 5 * MIN, T0 + 11 * MIN)) == []


def test_authorization_errors_surface_as_typed_exceptions(server, owner, new_app):
    app = new_app()
    sample = v.quantity_sample(STEPS, 10, "count", T0, T0 + MIN)
    with pytest.raises(errors.AuthorizationNotDetermined):
        app.save([sample])
    app.request_authorization(share=[STEPS])
    assert app.authorization_status(STEPS) == {STEPS: "NOT_DETERMINED"}
    owner.decide_authorization(app.bundle_id, share=[STEPS], grant=False)
    assert app.authorization_status(STEPS) == {STEPS: "SHARING_DENIED"}
    with pytest.raises(errors.AuthorizationDenied):
        app.save([sample])
    with pytest.raises(errors.InvalidArgument):
        app.request_authorization(share=[BP])
    with pytest.raises(errors.PermissionDenied):
        app.register_app("org.pytest.sneaky", "Sneaky")


def test_owner_is_told_of_authorization_requests_as_they_arrive(server, owner, new_app):
    app = new_app()
    feed = owner.authorization_request_updates(app.bundle_id)
    assert next(feed) == []
    app.request_authorization(share=[STEPS], read=[HR])
    pending = next(feed)
    while len(pending) < 2:
        pending = next(feed)
    assert sorted((r.type, r.direction) for r in pending) == [(HR, "READ"), (STEPS, "SHARE")]
    assert {r.app.bundle_id for r in pending} == {app.bundle_id}
    feed.close()


def test_read_denial_is_invisible(server, owner, new_app):
    writer = new_app(share=[HR], read=[HR])
    writer.save([v.quantity_sample(HR, 80, "count/min", T0 + 100 * MIN)])
    reader = new_app(share=[HR], read=[HR], approve=False)
    owner.decide_authorization(reader.bundle_id, share=[HR], grant=True)
    owner.decide_authorization(reader.bundle_id, read=[HR], grant=False)
    own = v.quantity_sample(HR, 90, "count/min", T0 + 101 * MIN)
    reader.save([own])
    seen = reader.samples(HR)
    assert [s.uuid for s in seen] == [uid(own)]
    assert [s.bundle_id for s in reader.sources(HR)] == [reader.bundle_id]


def test_count_samples_counts_what_samples_returns(server, owner, new_app):
    def downloaded(client, *types):
        groups = {}
        for s in client.samples(*types):
            key = (s.type, s.source_revision.source.bundle_id, s.device.name)
            groups[key] = groups.get(key, 0) + 1
        return groups

    def counted(client, *types):
        groups = {}
        for c in client.count_samples(*types):
            key = (c.type, c.source.bundle_id, c.device.name)
            groups[key] = groups.get(key, 0) + c.count
        return groups

    writer = new_app(share=[HR, STEPS], read=[HR, STEPS])
    writer.save([v.quantity_sample(HR, 70, "count/min", T0 + 400 * MIN, device=pb.Device(name="Band")),
                 v.quantity_sample(HR, 71, "count/min", T0 + 401 * MIN, device=pb.Device(name="Band")),
                 v.quantity_sample(STEPS, 9, "count", T0 + 400 * MIN, T0 + 401 * MIN)])
    reader = new_app(share=[HR], read=[HR], approve=False)
    owner.decide_authorization(reader.bundle_id, share=[HR], grant=True)
    owner.decide_authorization(reader.bundle_id, read=[HR], grant=False)
    reader.save([v.quantity_sample(HR, 90, "count/min", T0 + 402 * MIN)])
    assert counted(owner, HR, STEPS) == downloaded(owner, HR, STEPS)
    assert counted(owner, HR)[(HR, writer.bundle_id, "Band")] == 2
    assert counted(reader, HR) == downloaded(reader, HR) == {(HR, reader.bundle_id, "pytest"): 1}
    window = v.date_range(T0 + 401 * MIN, T0 + 500 * MIN)
    assert sum(c.count for c in writer.count_samples(HR, predicate=window) if c.source.bundle_id == writer.bundle_id) == 1


def test_statistics_no_data_and_sum(new_app):
    app = new_app(share=[STEPS], read=[STEPS])
    window = v.date_range(T0 + 1000 * MIN, T0 + 1100 * MIN)
    with pytest.raises(errors.NoData):
        app.statistics(STEPS, "cumulative_sum", predicate=window)
    app.save([v.quantity_sample(STEPS, 100, "count", T0 + 1000 * MIN, T0 + 1010 * MIN),
              v.quantity_sample(STEPS, 50, "count", T0 + 1020 * MIN, T0 + 1030 * MIN)])
    stats = app.statistics(STEPS, "cumulative_sum", predicate=window)
    assert stats.sum.value == pytest.approx(150)


def test_anchored_query_reports_deletions(new_app):
    app = new_app(share=[STEPS], read=[STEPS])
    predicate = v.from_sources(app.bundle_id)
    _, _, anchor = app.anchored(STEPS, predicate=predicate)
    sample = v.quantity_sample(STEPS, 5, "count", T0 + 2000 * MIN, T0 + 2001 * MIN)
    app.save([sample])
    added, deleted, anchor2 = app.anchored(STEPS, predicate=predicate, anchor=anchor)
    assert [s.uuid for s in added] == [uid(sample)] and deleted == []
    assert app.delete([sample.uuid]) == 1
    added, deleted, _ = app.anchored(STEPS, predicate=predicate, anchor=anchor2)
    assert added == [] and [d.uuid for d in deleted] == [uid(sample)]
    with pytest.raises((errors.InvalidAnchor, errors.InvalidArgument)):
        app.anchored(STEPS, anchor=b"garbage-anchor")


def test_observer_is_told_about_saves(new_app):
    app = new_app(share=[HR], read=[HR])
    events = app.observe(HR)
    assert next(events) == []
    app.save([v.quantity_sample(HR, 61, "count/min", T0 + 3000 * MIN)])
    assert HR in next(events)
    events.close()
    assert app.ping().payload == b""


def test_observers_acknowledge_each_event_so_the_next_one_comes(server_with):
    # Without acknowledgements the second event would wait an hour.
    s = server_with("--observer-ack-timeout", "3600")

    async def run():
        client = await AsyncClient.connect(s.owner_token, port=s.port)
        try:
            events = client.observe(HR)
            assert await asyncio.wait_for(events.__anext__(), 20) == []
            for minute in range(3):
                await client.save([v.quantity_sample(HR, 60 + minute, "count/min", T0 + minute * MIN)])
                assert await asyncio.wait_for(events.__anext__(), 20) == [HR]
            await events.aclose()
        finally:
            await client.close()

    asyncio.run(run())
    with s.connect() as client:
        events = client.observe(HR)
        assert next(events) == []
        for minute in range(3, 6):
            client.save([v.quantity_sample(HR, 60 + minute, "count/min", T0 + minute * MIN)])
            assert next(events) == [HR]
        events.close()


def test_an_observer_that_never_acknowledges_is_ended(server_with):
    s = server_with("--observer-ack-timeout", "0.2")
    with s.connect() as client:
        pending = client.submit("observe", pb.Observe(types=[HR]), "observer_event")
        assert pending.next_message(10).observer_event.sequence == 0
        for sequence in (1, 2, 3):
            client.save([v.quantity_sample(HR, 70, "count/min", T0 + sequence * MIN)])
            assert pending.next_message(10).observer_event.sequence == sequence
        ended = pending.next_message(10)
        assert ended.WhichOneof("result") == "call_ended"
        assert ended.call_ended.reason == pb.END_REASON_UNACKNOWLEDGED


def test_malformed_frame_closes_only_that_connection(server, owner):
    for garbage in (struct.pack(">I", 5) + b"\xff\xff\xff\xff\xff", struct.pack(">I", 0), struct.pack(">I", 1 << 30)):
        bad = socket.create_connection(("127.0.0.1", server.port))
        bad.sendall(garbage)
        bad.settimeout(10)
        received = b""
        while True:
            chunk = bad.recv(4096)
            if not chunk:
                break
            received += chunk
        bad.close()
        assert len(received) >= 4, "expected an Error frame before close"
        (length,) = struct.unpack(">I", received[:4])
        message = pb.ServerMessage.FromString(received[4:4 + length])
        assert message.call_id == 0 and message.WhichOneof("result") == "error"
        assert message.error.code in (pb.ERROR_CODE_MALFORMED, pb.ERROR_CODE_FRAME_TOO_LARGE)
    assert owner.ping(b"still here").payload == b"still here"


def test_first_call_must_be_hello(server):
    bad = Client(socket.create_connection(("127.0.0.1", server.port)))
    with pytest.raises(errors.HealthStoreError) as info:
        bad.ping()
    assert info.value.code in ("MALFORMED", "UNAUTHENTICATED")
    bad.close()


def run_simulator(server, tmp_path, end, *extra):
    """Runs healthsim (the Swift simulator) for the day before `end` (ISO 8601); returns its JSON report."""
    import subprocess
    from conftest import binary

    report_path = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.json"
    command = [binary("healthsim"), "--server", f"127.0.0.1:{server.port}",
               "--owner-token-file", f"{server.data}/owner.token", "--state-dir", str(tmp_path / "sim"),
               "--approve", "--mode", "backfill", "--days", "1", "--end", end,
               "--report", str(report_path), *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    assert report is not None, result.stdout + result.stderr
    return report


def stored_by_simulator(owner, report, end):
    """What the store holds from the simulator's sources around its day: counts per type, source and device."""
    import datetime as dt

    last = dt.datetime.fromisoformat(end.replace("Z", "+00:00"))
    window = v.date_range(last - dt.timedelta(days=2), last + dt.timedelta(days=1))
    sources = sorted(report["acknowledgedBySource"])
    by_type, by_source, by_device, uuids = {}, {}, {}, []
    for type_id in report["acknowledgedByType"]:
        found = owner.samples(type_id, predicate=v.all_of(v.from_sources(*sources), window))
        by_type[type_id] = len(found)
        for sample in found:
            bundle = sample.source_revision.source.bundle_id
            by_source[bundle] = by_source.get(bundle, 0) + 1
            by_device[sample.device.name] = by_device.get(sample.device.name, 0) + 1
            uuids.append(sample.uuid)
    return by_type, by_source, by_device, uuids


def test_simulator_under_faults_loses_nothing_acknowledged_and_duplicates_nothing(server, owner, tmp_path):
    end = "2026-07-01T00:00:00Z"
    report = run_simulator(server, tmp_path, end, "--seed", "11", "--faults", "--fault-rate", "0.3")
    faults = report["faults"]
    invalid = sum(n for kind, n in faults.items() if kind.startswith("invalid."))
    assert invalid > 0 and sum(faults.values()) > invalid, f"the run should inject every kind of fault: {faults}"
    assert report["rejectedByCode"] == {"INVALID_ARGUMENT": invalid}
    assert report["samplesAcknowledged"] == report["samplesGenerated"]
    by_type, by_source, by_device, uuids = stored_by_simulator(owner, report, end)
    assert len(uuids) == len(set(uuids)), "a retried or duplicated batch was stored twice"
    assert by_type == report["acknowledgedByType"]
    assert by_source == report["acknowledgedBySource"] and by_device == report["acknowledgedByDevice"]
    again = run_simulator(server, tmp_path, end, "--seed", "11")
    assert again["samplesRejected"] == 0
    assert len(stored_by_simulator(owner, again, end)[3]) == len(uuids), "re-running the same seed stored something twice"


def test_samples_saved_by_the_swift_simulator_read_back_in_python(server, owner, tmp_path):
    end = "2026-06-01T00:00:00Z"
    report = run_simulator(server, tmp_path, end, "--seed", "7")
    assert report["samplesAcknowledged"] > 100 and report["samplesRejected"] == 0
    by_type, by_source, by_device, uuids = stored_by_simulator(owner, report, end)
    assert by_type == report["acknowledgedByType"]
    assert by_source == report["acknowledgedBySource"]
    assert by_device == report["acknowledgedByDevice"]
    sample = owner.samples("HKQuantityTypeIdentifierHeartRate", predicate=v.from_sources(*report["acknowledgedBySource"]), limit=1)[0]
    assert sample.source_revision.version, "the server stamps the simulator's app version"
    assert sample.device.manufacturer, "the simulator's device identity travels with each sample"


def test_owner_saves_keeping_sources_and_apps_may_not(owner, new_app):
    name = f"Py Band {uuid.uuid4().hex[:6]}"
    band = {"name": "Py Band", "manufacturer": "Acme", "hardware_version": "3"}
    kept = v.from_source(v.quantity_sample(STEPS, 11, "count", T0 + 7 * MIN, T0 + 8 * MIN, device=band), name,
                         version="3.1", product_type="Band1,1", os_version=(2, 0, 1))
    assert owner.save([kept], keep_sources=True) == ["STORED"]

    listed = {s.name: s for s in owner.sources(STEPS)}
    source = listed[name]
    assert source.imported and source.imported_time is not None and source.imported_time > T0
    assert source.bundle_id.startswith("imported.py-band-"), "derived from the name"

    reader = new_app(read=[STEPS])
    got = reader.samples(STEPS, predicate=v.from_sources(source.bundle_id))
    assert [s.uuid for s in got] == [uid(kept)]
    revision = got[0].source_revision
    assert revision is not None
    assert (revision.source.name, revision.version, revision.product_type, revision.os_version) == (name, "3.1", "Band1,1", (2, 0, 1))
    assert got[0].device is not None and (got[0].device.name, got[0].device.hardware_version) == ("Py Band", "3")

    writer = new_app(share=[STEPS])
    claimed = v.from_source(v.quantity_sample(STEPS, 12, "count", T0 + 9 * MIN), name)
    with pytest.raises(errors.PermissionDenied) as refused:
        writer.save([claimed], keep_sources=True)
    assert "keep_sources" in refused.value.message

    nameless = v.quantity_sample(STEPS, 13, "count", T0 + 10 * MIN)
    with pytest.raises(errors.InvalidArgument) as invalid:
        owner.save([claimed, nameless], keep_sources=True)
    assert (invalid.value.object_index, invalid.value.field) == (1, "source_revision.source.name")


def test_owner_builds_series_as_a_named_source_and_apps_may_not(owner, new_app):
    name = f"Py Tracker {uuid.uuid4().hex[:6]}"
    tracker = v.source_revision(name, version="4.2", product_type="Tracker1,1", os_version=(4, 2, 0))
    run = v.from_source(v.workout(37, T0 + 20 * MIN, T0 + 50 * MIN), name, version="4.2")
    assert owner.save([run], keep_sources=True) == ["STORED"]
    route = series.route_builder(owner, as_source=tracker)
    assert route.insert([v.route_location(T0 + 21 * MIN, 47.37, 8.54), v.route_location(T0 + 22 * MIN, 47.38, 8.54)]) == 2
    [built] = route.finish(workout=run.uuid)
    beats = series.heartbeat_builder(owner, start=T0 + 20 * MIN, as_source=tracker)
    beats.insert([v.heartbeat(0), v.heartbeat(900_000)])
    [beat_series] = beats.finish()
    for sample in (built, beat_series):
        revision = sample.source_revision
        assert revision is not None
        assert (revision.source.name, revision.version, revision.product_type, revision.os_version) == (name, "4.2", "Tracker1,1", (4, 2, 0))
    assert built.source_revision is not None and built.source_revision.source.bundle_id.startswith("imported.py-tracker-")
    source = {s.name: s for s in owner.sources(v.ROUTE)}[name]
    assert source.imported and source.imported_time is not None

    runner = new_app(share=[v.ROUTE])
    with pytest.raises(errors.PermissionDenied) as refused:
        series.route_builder(runner, as_source=tracker).insert([v.route_location(T0 + 21 * MIN, 47.37, 8.54)])
    assert "source_revision" in refused.value.message


def test_ecg_audiogram_state_of_mind_and_assessments_from_python(server, owner, new_app):
    ecg_type, state, audio = v.ELECTROCARDIOGRAM, v.STATE_OF_MIND, v.AUDIOGRAM
    # Only the owner (the Health app) saves ECGs; an app's share request is refused as HealthKit refuses it.
    ecg = v.electrocardiogram(T0, T0 + 30_000_000, 512, [(round(i * 1e6 / 512), (i % 90) - 40.25) for i in range(15_360)],
                              classification=1, symptoms_status=1, average_heart_rate=64)
    assert owner.save([ecg]) == ["STORED"]
    app_types = [state, audio, v.GAD7, v.PHQ9]
    app = new_app(share=app_types, read=app_types + [ecg_type])
    with pytest.raises(errors.InvalidArgument, match="Authorization to share the following types is disallowed"):
        app.request_authorization(share=[ecg_type], read=[])
    [read_ecg] = app.samples(ecg_type)
    assert read_ecg.kind == "electrocardiogram" and read_ecg.uuid == uid(ecg)
    assert read_ecg.electrocardiogram.number_of_voltage_measurements == 15_360
    assert read_ecg.electrocardiogram.classification == 1
    assert len(read_ecg.raw.electrocardiogram.voltages) == 0, "voltages are streamed, not sent with the sample"

    mood = v.state_of_mind(2, 0.55, T0, labels=[17, 7], associations=[5, 17])
    hearing = v.audiogram([(1000, [v.audiogram_test(10, 0), v.audiogram_test(15, 1, masked=True, clamping=(0, None))]),
                           (4000, [v.audiogram_test(30, 1)])], T0, T0 + 10 * MIN)
    gad = v.scored_assessment("GAD7", [3, 3, 2, 2, 1, 1, 0], T0)
    phq = v.scored_assessment("PHQ9", [1, 1, 1, 1, 1, 0, 0, 0, 4], T0)
    assert app.save([mood, hearing, gad, phq]) == ["STORED"] * 4
    got = {s.uuid: s for s in app.samples(*app_types)}
    assert got[uid(mood)].state_of_mind.valence_classification == 6
    assert got[uid(mood)].state_of_mind.labels == [17, 7]
    assert [p.frequency.value for p in got[uid(hearing)].audiogram] == [1000, 4000]
    assert got[uid(hearing)].audiogram[0].tests[1].masked
    assert got[uid(hearing)].audiogram[0].tests[1].clamping_lower_bound.value == 0
    assert got[uid(hearing)].audiogram[0].tests[1].clamping_upper_bound is None
    assert (got[uid(gad)].scored_assessment.score, got[uid(gad)].scored_assessment.risk) == (12, 3)
    assert (got[uid(phq)].scored_assessment.score, got[uid(phq)].scored_assessment.risk) == (5, 2)

    # A valence outside −1…1 names its field; nothing is stored.
    with pytest.raises(errors.InvalidArgument) as bad:
        app.save([v.state_of_mind(1, 1.5, T0 + MIN)])
    assert bad.value.field == "state_of_mind.valence"

    # healthctl shows them, with the derived fields.
    rows = {r["uuid"].lower(): r for r in json.loads(server.healthctl("samples", "--type", "StateOfMind", "--type", "GAD7",
                                                                     "--format", "json"))}
    assert rows[str(uid(mood))]["state_of_mind"]["valence_classification"] == 6
    assert rows[str(uid(gad))]["scored_assessment"]["risk"] == 3
    table = server.healthctl("samples", "--type", "StateOfMind", "--type", "Electrocardiogram")
    assert "pleasant (happy, calm)" in table and "sinusRhythm" in table
