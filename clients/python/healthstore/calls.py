"""Every call of the v1 contract, written once for the blocking and the asyncio client.

Each call is a function that builds a `Plan`: the request, the result field, and how to read
the answer into a typed result. `Calls` turns each into a method with `unary` or `streaming`:
on `Client` the method returns the result (or an iterator), on `AsyncClient` an awaitable (or
an async iterator) — and type checkers see exactly that.
"""

from __future__ import annotations

import datetime as _dt
import functools
from dataclasses import dataclass
from typing import (Any, AsyncIterator, Awaitable, Callable, Dict, Generic, Iterable, Iterator, List, Mapping,
                    Optional, ParamSpec, Sequence, Tuple, TypeVar, Union, overload)

from . import results as r
from .v1 import healthstore_pb2 as pb
from .values import metadata_value, micros, uuid_bytes

T = TypeVar("T")
P = ParamSpec("P")

TypeNames = Union[str, Iterable[str]]
"""One type name or a list/tuple of them. Identifiers ("HKQuantityTypeIdentifierHeartRate") and
the short names the Swift tools accept ("HeartRate", "heart_rate") are both understood."""
Day = Union[str, _dt.date, Any]
"""A calendar day: "2026-11-01", a `date`/`datetime`, or a `CalendarDay` message."""
Sort = Union[Any, Tuple[Union[str, int], bool]]
"""A `SortDescriptor` message or (key, descending) with key "start_date", "end_date" or "workout_duration"."""
Time = Union[int, float, _dt.datetime]
"""Microseconds since the Unix epoch (int), seconds (float) or a datetime."""


@dataclass(frozen=True)
class Plan(Generic[T]):
    """One call ready to run: `read` turns the answer into the result. A "collect" plan's `read`
    takes every page of the answer; a "stream" plan's is applied to each answer as it comes."""

    kind: str
    call_field: str
    request: Any
    result_field: str
    read: Callable[[Any], T]


class SyncRunner:
    """Runs plans and blocks for their results (`Client`)."""

    def _execute(self, plan: Plan[Any]) -> Any:
        raise NotImplementedError


class AsyncRunner:
    """Runs plans as coroutines and async iterators (`AsyncClient`)."""

    def _execute(self, plan: Plan[Any]) -> Any:
        raise NotImplementedError


def _bind(build: Callable[P, Plan[T]], runner: Any) -> Callable[P, Any]:
    execute = runner._execute

    @functools.wraps(build)
    def call(*args: P.args, **kwargs: P.kwargs) -> Any:
        return execute(build(*args, **kwargs))

    return call


class unary(Generic[P, T]):  # noqa: N801 - used as a decorator-like descriptor
    """A call with one result: returns it on `Client`, an awaitable of it on `AsyncClient`."""

    def __init__(self, build: Callable[P, Plan[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, runner: None, owner: type) -> unary[P, T]: ...
    @overload
    def __get__(self, runner: SyncRunner, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, runner: AsyncRunner, owner: type) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, runner: object, owner: type) -> Any:
        return self if runner is None else _bind(self.build, runner)


class streaming(Generic[P, T]):  # noqa: N801 - used as a decorator-like descriptor
    """A long-running call: an iterator on `Client`, an async iterator on `AsyncClient`; closing it
    (or leaving the loop) cancels the call."""

    def __init__(self, build: Callable[P, Plan[T]]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, runner: None, owner: type) -> streaming[P, T]: ...
    @overload
    def __get__(self, runner: SyncRunner, owner: type) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, runner: AsyncRunner, owner: type) -> Callable[P, AsyncIterator[T]]: ...

    def __get__(self, runner: object, owner: type) -> Any:
        return self if runner is None else _bind(self.build, runner)


# -- argument readers -----------------------------------------------------------------------------
def type_list(*types: TypeNames) -> List[str]:
    """Flattens type arguments: each a name or an iterable of names."""
    names: List[str] = []
    for item in types:
        if isinstance(item, str):
            names.append(item)
            continue
        if isinstance(item, (bytes, bytearray)) or not isinstance(item, Iterable):
            raise TypeError(f"a type is a name or a list of names, not {item!r}")
        for name in item:
            if not isinstance(name, str):
                raise TypeError(f"a type name must be a str, not {name!r}")
            names.append(name)
    return names


def _day(day: Day) -> Any:
    if isinstance(day, pb.CalendarDay):
        return day
    if isinstance(day, (_dt.date, _dt.datetime)):
        return pb.CalendarDay(year=day.year, month=day.month, day=day.day)
    year, month, dom = (int(x) for x in str(day).split("-"))
    return pb.CalendarDay(year=year, month=month, day=dom)


def _enum_value(enum: Any, prefix: str, value: Union[str, int], what: str) -> int:
    if isinstance(value, int):
        return value
    name = prefix + value.upper().replace("-", "_")
    if name not in enum.keys():
        choices = ", ".join(k.replace(prefix, "", 1).lower() for k in enum.keys() if not k.endswith("UNSPECIFIED"))
        raise ValueError(f"unknown {what} {value!r} (one of {choices})")
    return int(enum.Value(name))


def _sort(descriptor: Sort) -> Any:
    if isinstance(descriptor, pb.SortDescriptor):
        return descriptor
    key, descending = descriptor
    return pb.SortDescriptor(key=_enum_value(pb.SortKey, "SORT_KEY_", key, "sort key"), descending=descending)


def _options(names: Iterable[str]) -> Any:
    return pb.StatisticsOptions(**{name: True for name in names})


def _with_predicate(message: Any, predicate: Optional[Any]) -> Any:
    if predicate is not None:
        message.predicate.CopyFrom(predicate)
    return message


def _sample_message(sample: Any) -> Any:
    """A `Sample` message from a builder's message or a typed result (saved again as it was read)."""
    return sample.raw if isinstance(sample, r.Sample) else sample


def _plan(call_field: str, request: Any, result_field: str, read: Callable[[Any], T], kind: str = "unary") -> Plan[T]:
    return Plan(kind, call_field, request, result_field, read)


def _pages(call_field: str, request: Any, result_field: str, read: Callable[[List[Any]], T]) -> Plan[T]:
    return _plan(call_field, request, result_field, read, "collect")


def _stream(call_field: str, request: Any, result_field: str, read: Callable[[Any], T]) -> Plan[T]:
    return _plan(call_field, request, result_field, read, "stream")


def _status_name(enum: Any, prefix: str) -> Callable[[int], str]:
    return lambda value: r.enum_name(enum, value, prefix)


# -- the calls ------------------------------------------------------------------------------------
def ping(payload: bytes = b"") -> Plan[r.Pong]:
    """Round trip: the payload comes back with the server's clock."""
    return _plan("ping", pb.Ping(payload=payload), "pong", r.Pong.from_pb)


def request_authorization(share: TypeNames = (), read: TypeNames = ()) -> Plan[None]:
    """Asks the owner for permission to share (write) and read types; success never says whether
    access was granted."""
    msg = pb.RequestAuthorization(share_types=type_list(share), read_types=type_list(read))
    return _plan("request_authorization", msg, "request_authorization", lambda _: None)


def authorization_status(*types: TypeNames) -> Plan[Dict[str, str]]:
    """Share status per type identifier: "NOT_DETERMINED", "SHARING_DENIED" or "SHARING_AUTHORIZED"."""
    name = _status_name(pb.AuthorizationStatus, "AUTHORIZATION_STATUS_")
    return _plan("get_authorization_status", pb.GetAuthorizationStatus(types=type_list(*types)), "get_authorization_status",
                 lambda res: {s.type: name(s.status) for s in res.statuses})


def request_status(share: TypeNames = (), read: TypeNames = ()) -> Plan[str]:
    """Whether asking for these types would show the owner anything: "SHOULD_REQUEST" or "UNNECESSARY"."""
    msg = pb.GetRequestStatusForAuthorization(share_types=type_list(share), read_types=type_list(read))
    name = _status_name(pb.AuthorizationRequestStatus, "AUTHORIZATION_REQUEST_STATUS_")
    return _plan("get_request_status_for_authorization", msg, "get_request_status_for_authorization",
                 lambda res: name(res.status))


def save(samples: Iterable[Any], keep_sources: bool = False) -> Plan[List[str]]:
    """Saves samples atomically (messages from `healthstore.values`, or `Sample` results); returns
    one outcome per object: "STORED", "ALREADY_STORED", "REPLACED" or "KEPT_EXISTING".
    `keep_sources` (owner only: an import) saves each sample as its own source revision (see
    `values.from_source`; a `Sample` result keeps the one it was read with) and its device as given."""
    msg = pb.SaveObjects(objects=[_sample_message(s) for s in samples], keep_sources=keep_sources)
    name = _status_name(pb.SaveOutcome, "SAVE_OUTCOME_")
    return _plan("save_objects", msg, "save_objects", lambda res: [name(o) for o in res.outcomes])


def delete(uuids: Iterable[Any]) -> Plan[int]:
    """Deletes the caller's own objects by UUID (`uuid.UUID`, text or 16 bytes); returns how many."""
    msg = pb.DeleteObjects(uuids=pb.UuidsPredicate(uuids=[uuid_bytes(u) for u in uuids]))
    return _plan("delete_objects", msg, "delete_objects", lambda res: int(res.deleted_count))


def delete_matching(type_id: str, predicate: Optional[Any] = None) -> Plan[int]:
    """Deletes the caller's own objects of a type matching a predicate; returns how many."""
    matching = _with_predicate(pb.TypedPredicate(type=type_id), predicate)
    return _plan("delete_objects", pb.DeleteObjects(matching=matching), "delete_objects", lambda res: int(res.deleted_count))


def insert_series_data(builder_id: Any, type_id: str, locations: Iterable[Any] = (), beats: Iterable[Any] = (),
                       start: Time = 0, device: Optional[Any] = None, quantities: Iterable[Any] = (),
                       as_source: Optional[Any] = None) -> Plan[int]:
    """Opens a series builder (first call) and adds route locations (`values.route_location`), beats
    (`values.heartbeat`) or quantity points (`values.quantity_point`) after those added so far; returns
    how many points it holds. `start` is a heartbeat or quantity series' start; the builder id becomes
    the finished sample's UUID. `as_source` (owner only: an import; a `values.source_revision`) opens
    the builder as that source, and the finished sample is saved as it, the source marked imported."""
    msg = pb.InsertSeriesData(builder_id=uuid_bytes(builder_id), type=type_id, start_time=micros(start),
                              locations=list(locations), beats=list(beats), quantities=list(quantities))
    if device is not None:
        msg.device.CopyFrom(device if isinstance(device, pb.Device) else pb.Device(**device))
    if as_source is not None:
        msg.source_revision.CopyFrom(as_source)
    return _plan("insert_series_data", msg, "insert_series_data", lambda res: int(res.count))


def finish_series(builder_id: Any, workout: Optional[Any] = None, metadata: Optional[Mapping[str, Any]] = None,
                  end: Optional[Time] = None) -> Plan[List[r.Sample]]:
    """Finishes a builder into its sample (a route with the stored `workout` it belongs to); finishing
    twice fails. Empty when a stored sample with the same sync identifier and a version at least as high is kept."""
    msg = pb.FinishSeries(builder_id=uuid_bytes(builder_id), end_time=micros(end) if end is not None else 0)
    if workout is not None:
        msg.workout_uuid = uuid_bytes(workout)
    for key, value in (metadata or {}).items():
        msg.metadata[key].CopyFrom(metadata_value(value))
    return _plan("finish_series", msg, "finish_series", lambda res: [r.Sample.from_pb(s) for s in res.samples])


def discard_series(builder_id: Any) -> Plan[None]:
    """Drops an unfinished builder and its points."""
    return _plan("discard_series", pb.DiscardSeries(builder_id=uuid_bytes(builder_id)), "discard_series", lambda res: None)


def series_data(sample_uuid: Any, batch_size: int = 0) -> Plan[r.SeriesPage]:
    """HKWorkoutRouteQuery / HKHeartbeatSeriesQuery / HKQuantitySeriesSampleQuery / HKElectrocardiogramQuery:
    the points of a series sample (a route, heartbeat series, quantity sample or ECG), page by page
    (`batch_size` 0 = the server's default). A sample the caller cannot read yields one empty page."""
    msg = pb.QuerySeriesData(uuid=uuid_bytes(sample_uuid), batch_size=batch_size)
    return _stream("query_series_data", msg, "series_data", r.SeriesPage.from_pb)


def quantity_series_data(type_id: str, predicate: Optional[Any] = None, batch_size: int = 0) -> Plan[r.SeriesPage]:
    """HKQuantitySeriesSampleQuery without a sample: the points of every readable sample of a quantity
    type matching the predicate, sample after sample (the last page of each has `done`)."""
    msg = _with_predicate(pb.QuerySeriesData(type=type_id, batch_size=batch_size), predicate)
    return _stream("query_series_data", msg, "series_data", r.SeriesPage.from_pb)


def samples(*types: TypeNames, predicate: Optional[Any] = None, sort: Sequence[Sort] = (), limit: int = 0) -> Plan[List[r.Sample]]:
    """HKSampleQuery: every readable sample of the types matching the predicate (0 = no limit)."""
    msg = _with_predicate(pb.QuerySamples(types=type_list(*types), limit=limit, sort=[_sort(s) for s in sort]), predicate)
    return _pages("query_samples", msg, "samples", lambda pages: [r.Sample.from_pb(s) for page in pages for s in page.samples])


def _anchored_request(types: Sequence[TypeNames], predicate: Optional[Any], anchor: Optional[bytes], limit: int, updates: bool) -> Any:
    msg = pb.QueryAnchored(types=type_list(*types), anchor=anchor or b"", limit=limit, updates=updates)
    return _with_predicate(msg, predicate)


def _merge_anchored(pages: List[Any]) -> r.AnchoredResult:
    found: List[r.Sample] = []
    deleted: List[r.DeletedObject] = []
    anchor = b""
    for page in pages:
        found.extend(r.Sample.from_pb(s) for s in page.samples)
        deleted.extend(r.DeletedObject.from_pb(d) for d in page.deleted)
        anchor = page.new_anchor or anchor
    return r.AnchoredResult(found, deleted, anchor)


def anchored(*types: TypeNames, predicate: Optional[Any] = None, anchor: Optional[bytes] = None, limit: int = 0) -> Plan[r.AnchoredResult]:
    """HKAnchoredObjectQuery: samples added and objects deleted since `anchor` (None = from the
    start), and the new anchor; unpacks as `samples, deleted, anchor`."""
    return _pages("query_anchored", _anchored_request(types, predicate, anchor, limit, False), "anchored", _merge_anchored)


def anchored_updates(*types: TypeNames, predicate: Optional[Any] = None, anchor: Optional[bytes] = None) -> Plan[r.AnchoredPage]:
    """Long-running anchored query: yields the initial pages, then a page for every change."""
    return _stream("query_anchored", _anchored_request(types, predicate, anchor, 0, True), "anchored", r.AnchoredPage.from_pb)


def statistics(type_id: str, *options: str, predicate: Optional[Any] = None, unit: str = "") -> Plan[r.Statistics]:
    """HKStatisticsQuery; options are names like "cumulative_sum", "discrete_average",
    "separate_by_source". Raises NoData when nothing matches."""
    msg = _with_predicate(pb.QueryStatistics(type=type_id, unit=unit, options=_options(options)), predicate)
    return _plan("query_statistics", msg, "statistics", lambda res: r.Statistics.from_pb(res.statistics))


def _collection_request(type_id: str, options: Iterable[str], anchor: Time, interval: Mapping[str, int], start: Time, end: Time,
                        time_zone: str, predicate: Optional[Any], unit: str, updates: bool) -> Any:
    msg = pb.QueryStatisticsCollection(
        type=type_id, unit=unit, anchor_time=micros(anchor), interval=pb.IntervalComponents(**interval),
        time_zone=time_zone, from_time=micros(start), to_time=micros(end), updates=updates, options=_options(options))
    return _with_predicate(msg, predicate)


def statistics_collection(type_id: str, *options: str, anchor: Time, interval: Mapping[str, int], start: Time, end: Time,
                          time_zone: str = "", predicate: Optional[Any] = None, unit: str = "") -> Plan[List[r.Statistics]]:
    """HKStatisticsCollectionQuery: one Statistics per interval (like {"days": 1}) from `start` to `end`,
    intervals aligned to `anchor` in `time_zone`."""
    msg = _collection_request(type_id, options, anchor, interval, start, end, time_zone, predicate, unit, False)
    return _plan("query_statistics_collection", msg, "statistics_collection",
                 lambda res: [r.Statistics.from_pb(b) for b in res.buckets])


def statistics_collection_updates(type_id: str, *options: str, anchor: Time, interval: Mapping[str, int], start: Time, end: Time,
                                  time_zone: str = "", predicate: Optional[Any] = None,
                                  unit: str = "") -> Plan[r.StatisticsCollectionPage]:
    """Long-running statistics collection: yields the initial buckets, then the buckets a change touched."""
    msg = _collection_request(type_id, options, anchor, interval, start, end, time_zone, predicate, unit, True)
    return _stream("query_statistics_collection", msg, "statistics_collection", r.StatisticsCollectionPage.from_pb)


def correlations(type_id: str, predicate: Optional[Any] = None,
                 sample_predicates: Iterable[Tuple[str, Optional[Any]]] = ()) -> Plan[List[r.Sample]]:
    """HKCorrelationQuery; `sample_predicates` is a list of (type, predicate or None) for the contents."""
    msg = _with_predicate(pb.QueryCorrelations(type=type_id), predicate)
    for type_name, sample_predicate in sample_predicates:
        _with_predicate(msg.sample_predicates.add(type=type_name), sample_predicate)
    return _plan("query_correlations", msg, "correlations", lambda res: [r.Sample.from_pb(c) for c in res.correlations])


def sources(type_id: str, predicate: Optional[Any] = None) -> Plan[List[r.Source]]:
    """HKSourceQuery: the sources that saved readable samples of a type."""
    msg = _with_predicate(pb.QuerySources(type=type_id), predicate)
    return _plan("query_sources", msg, "sources", lambda res: [r.Source.from_pb(s) for s in res.sources])


def devices(type_id: str = "") -> Plan[List[r.Device]]:
    """The distinct devices of readable samples (of one type, or of all)."""
    return _plan("query_devices", pb.QueryDevices(type=type_id), "devices", lambda res: [r.Device.from_pb(d) for d in res.devices])


def count_samples(*types: TypeNames, predicate: Optional[Any] = None) -> Plan[List[r.SampleCount]]:
    """How many readable samples `samples(*types, predicate=...)` would return, per type, source and
    device: the server counts, no sample is sent."""
    msg = _with_predicate(pb.CountSamples(types=type_list(*types)), predicate)
    return _plan("count_samples", msg, "sample_counts", lambda res: [r.SampleCount.from_pb(c) for c in res.counts])


def observe(*types: TypeNames, frequency: Union[str, int] = 0) -> Plan[List[str]]:
    """HKObserverQuery: yields the changed type identifiers (the first, empty, confirms registration).
    Asking for the next event acknowledges the last one, like HealthKit's completion handler; the
    server holds further events until then and ends an observer that never acknowledges."""
    msg = pb.Observe(types=type_list(*types),
                     frequency=_enum_value(pb.UpdateFrequency, "UPDATE_FREQUENCY_", frequency, "update frequency"))
    return _stream("observe", msg, "observer_event", lambda res: list(res.changed_types))


def activity_summaries(first_day: Day, last_day: Day, time_zone: str = "") -> Plan[List[r.ActivitySummary]]:
    """HKActivitySummaryQuery for an inclusive range of days ("2026-11-01" or date objects)."""
    msg = pb.QueryActivitySummaries(from_day=_day(first_day), to_day=_day(last_day), time_zone=time_zone)
    return _plan("query_activity_summaries", msg, "activity_summaries",
                 lambda res: [r.ActivitySummary.from_pb(s) for s in res.summaries])


def characteristics() -> Plan[r.Characteristics]:
    """The owner's characteristics (unset or unreadable ones are None)."""
    return _plan("read_characteristics", pb.ReadCharacteristics(), "characteristics", r.Characteristics.from_pb)


_CHARACTERISTIC_ENUMS = {
    "biological_sex": (pb.BiologicalSex, "BIOLOGICAL_SEX_"),
    "blood_type": (pb.BloodType, "BLOOD_TYPE_"),
    "fitzpatrick_skin_type": (pb.FitzpatrickSkinType, "FITZPATRICK_SKIN_TYPE_"),
    "wheelchair_use": (pb.WheelchairUse, "WHEELCHAIR_USE_"),
    "activity_move_mode": (pb.ActivityMoveMode, "ACTIVITY_MOVE_MODE_"),
}


def write_characteristics(**fields: Any) -> Plan[None]:
    """Owner only: sets characteristics by name, e.g. biological_sex="female", blood_type="a_positive",
    date_of_birth="1990-04-01" (enum numbers from `pb` work too)."""
    values: Dict[str, Any] = {}
    for name, value in fields.items():
        if name == "date_of_birth":
            values[name] = _day(value)
        elif name in _CHARACTERISTIC_ENUMS:
            enum, prefix = _CHARACTERISTIC_ENUMS[name]
            values[name] = _enum_value(enum, prefix, value, name.replace("_", " "))
        else:
            raise TypeError(f"unknown characteristic {name!r}")
    msg = pb.WriteCharacteristics(characteristics=pb.Characteristics(**values))
    return _plan("write_characteristics", msg, "write_characteristics", lambda _: None)


def _bundle_ids(res: Any) -> List[str]:
    return [s.bundle_id for s in res.sources]


def set_source_priority(type_id: str, bundle_ids: Iterable[str]) -> Plan[List[str]]:
    """Owner only: the source order for a type, highest first; returns the effective order."""
    msg = pb.SetSourcePriority(type=type_id, bundle_ids=list(bundle_ids))
    return _plan("set_source_priority", msg, "source_priority", _bundle_ids)


def get_source_priority(type_id: str) -> Plan[List[str]]:
    """The effective source order for a type, as bundle ids."""
    return _plan("get_source_priority", pb.GetSourcePriority(type=type_id), "source_priority", _bundle_ids)


def register_app(bundle_id: str, name: str) -> Plan[str]:
    """Owner only: registers an app; returns its token (shown only this once)."""
    return _plan("register_app", pb.RegisterApp(bundle_id=bundle_id, name=name), "app_credential", lambda res: str(res.token))


def rotate_app_token(bundle_id: str) -> Plan[str]:
    """Owner only: a new token for an app; the old one stops working."""
    return _plan("rotate_app_token", pb.RotateAppToken(bundle_id=bundle_id), "app_credential", lambda res: str(res.token))


def list_apps() -> Plan[List[r.App]]:
    """Owner only: the registered apps."""
    return _plan("list_apps", pb.ListApps(), "list_apps", lambda res: [r.App.from_pb(a) for a in res.apps])


def revoke_app(bundle_id: str) -> Plan[int]:
    """Owner only: revokes an app and closes its connections; returns how many were closed."""
    return _plan("revoke_app", pb.RevokeApp(bundle_id=bundle_id), "revoke_app", lambda res: int(res.connections_closed))


def _requests(res: Any) -> List[r.AuthorizationRequest]:
    return [r.AuthorizationRequest.from_pb(q) for q in res.requests]


def authorization_requests(bundle_id: str = "") -> Plan[List[r.AuthorizationRequest]]:
    """Owner only: the pending authorization requests (of one app, or of all)."""
    msg = pb.ListAuthorizationRequests(bundle_id=bundle_id)
    return _plan("list_authorization_requests", msg, "authorization_requests", _requests)


def authorization_request_updates(bundle_id: str = "") -> Plan[List[r.AuthorizationRequest]]:
    """Owner only, long-running: yields the pending requests now, and again whenever new ones arrive."""
    msg = pb.ListAuthorizationRequests(bundle_id=bundle_id, updates=True)
    return _stream("list_authorization_requests", msg, "authorization_requests", _requests)


def decide_authorization(bundle_id: str, share: TypeNames = (), read: TypeNames = (), grant: bool = True) -> Plan[int]:
    """Owner only: grants (or with grant=False denies) an app share/read permission for types;
    returns how many decisions were recorded."""
    decisions = [pb.AuthorizationDecision(type=t, direction=pb.ACCESS_DIRECTION_SHARE, grant=grant) for t in type_list(share)]
    decisions += [pb.AuthorizationDecision(type=t, direction=pb.ACCESS_DIRECTION_READ, grant=grant) for t in type_list(read)]
    msg = pb.DecideAuthorization(bundle_id=bundle_id, decisions=decisions)
    return _plan("decide_authorization", msg, "decide_authorization", lambda res: int(res.recorded))


def list_permissions(bundle_id: str) -> Plan[List[r.Permission]]:
    """Owner only: one app's permissions."""
    return _plan("list_permissions", pb.ListPermissions(bundle_id=bundle_id), "list_permissions",
                 lambda res: [r.Permission.from_pb(p) for p in res.permissions])


def add_owner(name: str) -> Plan[str]:
    """Operator only: creates an owner; returns the owner's token."""
    return _plan("add_owner", pb.AddOwner(name=name), "owner_credential", lambda res: str(res.token))


def list_owners() -> Plan[List[str]]:
    """Operator only: the owners' names."""
    return _plan("list_owners", pb.ListOwners(), "list_owners", lambda res: list(res.names))


class Calls:
    """Every call as a method; `Client` runs them blocking, `AsyncClient` as coroutines."""

    ping = unary(ping)
    request_authorization = unary(request_authorization)
    authorization_status = unary(authorization_status)
    request_status = unary(request_status)
    save = unary(save)
    delete = unary(delete)
    delete_matching = unary(delete_matching)
    samples = unary(samples)
    anchored = unary(anchored)
    anchored_updates = streaming(anchored_updates)
    statistics = unary(statistics)
    statistics_collection = unary(statistics_collection)
    statistics_collection_updates = streaming(statistics_collection_updates)
    correlations = unary(correlations)
    sources = unary(sources)
    devices = unary(devices)
    count_samples = unary(count_samples)
    observe = streaming(observe)
    activity_summaries = unary(activity_summaries)
    characteristics = unary(characteristics)
    write_characteristics = unary(write_characteristics)
    set_source_priority = unary(set_source_priority)
    get_source_priority = unary(get_source_priority)
    register_app = unary(register_app)
    rotate_app_token = unary(rotate_app_token)
    list_apps = unary(list_apps)
    revoke_app = unary(revoke_app)
    authorization_requests = unary(authorization_requests)
    authorization_request_updates = streaming(authorization_request_updates)
    decide_authorization = unary(decide_authorization)
    list_permissions = unary(list_permissions)
    add_owner = unary(add_owner)
    list_owners = unary(list_owners)
    insert_series_data = unary(insert_series_data)
    finish_series = unary(finish_series)
    discard_series = unary(discard_series)
    series_data = streaming(series_data)
    quantity_series_data = streaming(quantity_series_data)
