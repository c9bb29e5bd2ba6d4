"""Interop: routes and heartbeat series built from Python against a real healthd, streamed back in
pages, read by the Swift tools, and hidden from readers without read permission for the series type."""

import json
import uuid

import pytest

from healthstore import errors, series, values as v

ROUTE = v.ROUTE
BEATS = v.HEARTBEAT_SERIES
WORKOUT = "HKWorkoutTypeIdentifier"
T0 = 1_780_000_000_000_000
SEC = 1_000_000


def locations(count, start=T0):
    return [v.route_location(start + i * SEC, 47.37 + i * 0.00003, 8.54 + i * 0.00001, altitude=400 + i % 5,
                             horizontal_accuracy=5, vertical_accuracy=3, speed=2.5) for i in range(count)]


def test_a_route_built_in_python_streams_back_in_pages_and_shows_in_healthctl(server, owner, new_app):
    app = new_app(share=[ROUTE, WORKOUT], read=[ROUTE, WORKOUT])
    workout = v.workout(37, T0, T0 + 3_600 * SEC)
    app.save([workout])
    builder = series.route_builder(app)
    points = locations(2_500)
    assert builder.insert(points[:1_000]) == 1_000
    assert builder.insert(points[1_000:]) == 2_500
    with pytest.raises(errors.HealthStoreError) as earlier:
        builder.insert(points[:1])
    assert earlier.value.field == "locations[0].time"
    [route] = builder.finish(workout=workout.uuid, metadata={"Trail": "Lake"})
    assert route.uuid == builder.id and route.kind == "series" and route.count == 2_500
    assert (route.start_time, route.end_time) == (T0, T0 + 2_499 * SEC)
    with pytest.raises(errors.HealthStoreError, match="already been finished"):
        builder.finish(workout=workout.uuid)

    pages = list(app.series_data(route.uuid, batch_size=1_000))
    assert [len(p.locations) for p in pages] == [1_000, 1_000, 500]
    assert [p.done for p in pages] == [False, False, True]
    read = [loc for p in pages for loc in p.locations]
    assert [(loc.time, round(loc.latitude, 7), loc.speed) for loc in read[:2]] == [(T0, 47.37, 2.5), (T0 + SEC, 47.37003, 2.5)]
    by_workout = app.samples(ROUTE, predicate=v.pb.Predicate(workout=v.pb.WorkoutPredicate(workout_uuid=workout.uuid)))
    assert [s.uuid for s in by_workout] == [route.uuid]
    rows = json.loads(server.healthctl("samples", "--type", "WorkoutRoute", "--source", app.bundle_id, "--format", "json"))
    assert [(row["uuid"].lower(), row["kind"], row["count"]) for row in rows] == [(str(route.uuid), "series", 2_500)]


def test_a_heartbeat_series_and_a_discarded_builder(new_app):
    app = new_app(share=[BEATS], read=[BEATS])
    builder = series.heartbeat_builder(app, start=T0)
    beats = [v.heartbeat(i * 800_000, preceded_by_gap=(i == 7)) for i in range(90)]
    builder.insert(beats)
    [sample] = builder.finish(end=T0 + 80 * SEC)
    assert (sample.count, sample.end_time) == (90, T0 + 80 * SEC)
    [page] = list(app.series_data(sample.uuid))
    assert [(b.offset, b.preceded_by_gap) for b in page.beats][6:9] == [(4_800_000, False), (5_600_000, True), (6_400_000, False)]

    dropped = series.heartbeat_builder(app, start=T0)
    dropped.insert(beats[:2])
    dropped.discard()
    with pytest.raises(errors.HealthStoreError, match="No open series builder"):
        dropped.finish()


def test_a_reader_without_route_permission_sees_no_route(server, owner, new_app):
    runner = new_app(share=[ROUTE, WORKOUT], read=[ROUTE])
    workout = v.workout(37, T0, T0 + 600 * SEC)
    runner.save([workout])
    builder = series.route_builder(runner)
    builder.insert(locations(20))
    [route] = builder.finish(workout=workout.uuid)
    reader = new_app(read=[WORKOUT, ROUTE], approve=False)
    owner.decide_authorization(reader.bundle_id, read=[WORKOUT], grant=True)
    owner.decide_authorization(reader.bundle_id, read=[ROUTE], grant=False)
    assert uuid.UUID(bytes=workout.uuid) in [s.uuid for s in reader.samples(WORKOUT)]
    assert reader.samples(ROUTE) == []
    denied = list(reader.series_data(route.uuid))
    absent = list(reader.series_data(uuid.uuid4()))
    assert [(p.locations, p.beats, p.done) for p in denied] == [(p.locations, p.beats, p.done) for p in absent] == [([], [], True)]


def workout_route_and_beats(new_app):
    """An app that saved a workout, then finished a route of it and, after, a heartbeat series."""
    app = new_app(share=[ROUTE, BEATS, WORKOUT], read=[ROUTE, BEATS, WORKOUT])
    workout = v.workout(13, T0, T0 + 1_800 * SEC)
    app.save([workout])
    route = series.route_builder(app)
    route.insert(locations(1_500))
    [stored_route] = route.finish(workout=workout.uuid)
    beats = series.heartbeat_builder(app, start=T0 + 60 * SEC)
    beats.insert([v.heartbeat(i * 900_000, preceded_by_gap=(i == 3)) for i in range(60)])
    [stored_beats] = beats.finish(metadata={"Reading": 1})
    return app, workout, stored_route, stored_beats


def test_export_and_import_carry_routes_and_beats_losslessly(server, new_app, server_with, tmp_path):
    app, workout, stored_route, stored_beats = workout_route_and_beats(new_app)
    export = tmp_path / "export.jsonl"
    server.healthctl("export", "--type", "Workout", "--type", "WorkoutRoute", "--type", "HeartbeatSeries",
                     "--source", app.bundle_id, "--output", str(export))

    fresh = server_with()
    for _ in range(2):   # the second import stores nothing
        fresh.healthctl("import", str(export))
    with fresh.connect() as owner:
        [copy] = owner.samples(ROUTE)
        assert (copy.uuid, copy.count, copy.start_time, copy.end_time) == (
            stored_route.uuid, 1_500, stored_route.start_time, stored_route.end_time)
        assert [s.uuid for s in owner.samples(ROUTE, predicate=v.pb.Predicate(
            workout=v.pb.WorkoutPredicate(workout_uuid=workout.uuid)))] == [copy.uuid]
        original = [loc for page in app.series_data(stored_route.uuid) for loc in page.locations]
        copied = [loc for page in owner.series_data(copy.uuid) for loc in page.locations]
        assert copied == original
        [beat_copy] = owner.samples(BEATS)
        assert (beat_copy.uuid, beat_copy.metadata, beat_copy.end_time) == (stored_beats.uuid, {"Reading": 1}, stored_beats.end_time)
        assert [p.beats for p in owner.series_data(beat_copy.uuid)] == [p.beats for p in app.series_data(stored_beats.uuid)]


def test_an_export_without_workouts_writes_routes_in_anchor_order(server, new_app, tmp_path):
    # A route waits for its workout's line only when the export writes workouts: here its workout is
    # stored but not asked for, so the route is written where its anchor puts it, before the heartbeat
    # series saved after it, not held back to the end of the export.
    app, workout, stored_route, stored_beats = workout_route_and_beats(new_app)
    export = tmp_path / "export.jsonl"
    server.healthctl("export", "--type", "WorkoutRoute", "--type", "HeartbeatSeries", "--source", app.bundle_id,
                     "--output", str(export))
    lines = [json.loads(line) for line in export.read_text().splitlines()]
    assert [line["uuid"] for line in lines] == [str(s.uuid).upper() for s in (stored_route, stored_beats)]
    assert lines[0]["workout_uuid"] == v.uuid_string(workout.uuid).upper()


HEART = "HKQuantityTypeIdentifierHeartRate"
ECG = v.ELECTROCARDIOGRAM


def test_a_quantity_series_built_in_python_reads_back_by_uuid_and_by_type(new_app):
    app = new_app(share=[HEART], read=[HEART])
    builder = series.quantity_series_builder(app, "HeartRate", start=T0)
    points = [(100 + i % 30, "count/min", T0 + i * 5 * SEC) for i in range(300)]
    assert builder.insert(points[:200]) == 200
    assert builder.insert([v.quantity_point(*p) for p in points[200:]]) == 300
    [sample] = builder.finish(metadata={"Session": "run"})
    assert (sample.uuid, sample.kind, sample.count) == (builder.id, "quantity", 300)
    assert (sample.start_time, sample.end_time) == (T0, T0 + 299 * 5 * SEC)
    assert (sample.minimum.value, sample.maximum.value, sample.most_recent.value) == (100, 129, 100 + 299 % 30)
    plain = v.quantity_sample("HeartRate", 61, "count/min", T0 + 3_600 * SEC)
    app.save([plain])

    by_uuid = list(app.series_data(builder.id, batch_size=128))
    assert [len(p.quantities) for p in by_uuid] == [128, 128, 44] and by_uuid[-1].done
    read = [(q.quantity.value, q.start_time, q.end_time) for p in by_uuid for q in p.quantities]
    assert read == [(value, start, start) for value, _, start in points]

    mine = v.from_sources(app.bundle_id)
    after_start = v.all_of(mine, v.date_range(start=T0 + SEC, strict_start=True))
    by_type = {}
    for page in app.quantity_series_data(HEART, predicate=after_start, batch_size=1_000):
        by_type.setdefault(page.sample_uuid, []).extend((q.quantity.value, q.start_time) for q in page.quantities)
    assert by_type == {uuid.UUID(bytes=plain.uuid): [(61, T0 + 3_600 * SEC)]}, "the series starts before the predicate"
    everything = {page.sample_uuid for page in app.quantity_series_data(HEART, predicate=mine)}
    assert everything == {builder.id, uuid.UUID(bytes=plain.uuid)}


def test_an_owner_saved_ecg_streams_its_voltages_to_a_reader(owner, new_app):
    voltages = [(round(i * 1e6 / 512), (i % 40) * 2.5 - 50) for i in range(3_000)]
    ecg = v.electrocardiogram(T0, T0 + 30 * SEC, 512, voltages, classification=1)
    assert owner.save([ecg]) == ["STORED"]
    reader = new_app(read=[ECG])
    pages = list(reader.series_data(ecg.uuid, batch_size=1_000))
    assert [(len(p.voltages), p.done) for p in pages] == [(1_000, False), (1_000, False), (1_000, True)]
    assert [(m.offset, m.microvolts) for p in pages for m in p.voltages] == voltages
    blind = new_app(read=[HEART])
    assert [(p.voltages, p.done) for p in blind.series_data(ecg.uuid)] == [([], True)]


def test_export_and_import_carry_quantity_series_and_ecg_voltages(server, owner, new_app, server_with, tmp_path):
    app = new_app(share=[HEART], read=[HEART])
    start = T0 + 7_200 * SEC
    builder = series.quantity_series_builder(app, "HeartRate", start=start)
    builder.insert([(90 + i % 7, "count/min", start + i * 5 * SEC) for i in range(50)])
    [built] = builder.finish(metadata={"Session": "export"})
    counted = v.quantity_sample("HeartRate", 70, "count/min", start + 600 * SEC, start + 660 * SEC, count=3)
    app.save([counted])
    voltages = [(round(i * 1e6 / 512), (i % 40) * 2.5 - 50) for i in range(2_048)]
    ecg = v.electrocardiogram(start, start + 4 * SEC, 512, voltages, classification=1)
    owner.save([ecg])
    export = tmp_path / "export.jsonl"
    server.healthctl("export", "--type", "HeartRate", "--type", "Electrocardiogram", "--output", str(export))
    lines = {row["uuid"].lower(): row for row in map(json.loads, export.read_text().splitlines())}
    assert len(lines[str(built.uuid)]["quantities"]) == 50
    assert "quantities" not in lines[str(uuid.UUID(bytes=counted.uuid))], "a count without points is saved as it is"
    assert len(lines[str(uuid.UUID(bytes=ecg.uuid))]["electrocardiogram"]["voltages"]) == 2_048

    fresh = server_with()
    for _ in range(2):   # the second import stores nothing
        fresh.healthctl("import", str(export))
    wanted = [built.uuid, uuid.UUID(bytes=counted.uuid), uuid.UUID(bytes=ecg.uuid)]
    with fresh.connect() as copy:
        by_uuid = {s.uuid: s for s in copy.samples(HEART, ECG, predicate=v.pb.Predicate(
            uuids=v.pb.UuidsPredicate(uuids=[u.bytes for u in wanted])))}
        assert set(by_uuid) == set(wanted)
        quantity = by_uuid[built.uuid]
        assert (quantity.count, quantity.start_time, quantity.end_time, quantity.metadata) == (
            50, built.start_time, built.end_time, {"Session": "export"})
        assert (quantity.quantity, quantity.minimum, quantity.maximum, quantity.most_recent) == (
            built.quantity, built.minimum, built.maximum, built.most_recent)
        points = [(q.quantity, q.start_time, q.end_time) for page in copy.series_data(built.uuid) for q in page.quantities]
        assert points == [(q.quantity, q.start_time, q.end_time) for page in app.series_data(built.uuid) for q in page.quantities]
        assert by_uuid[uuid.UUID(bytes=counted.uuid)].count == 3
        read = [(m.offset, m.microvolts) for page in copy.series_data(ecg.uuid) for m in page.voltages]
        assert read == voltages
