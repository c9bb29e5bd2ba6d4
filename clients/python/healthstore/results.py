"""Typed results: immutable dataclasses read from the protocol's messages.

Every result keeps the protobuf message it was read from in `.raw` (not part of equality or
repr), for fields this client version does not wrap. Times are microseconds since the Unix
epoch (`*_time` fields) with `datetime` views (`start`, `end`); enum values are their names
without the prefix ("OWNER", "READ", "PAUSE"); UUIDs are `uuid.UUID`.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from .v1 import healthstore_pb2 as pb

MetadataScalar = Union[str, float, int, bool, _dt.datetime, "Quantity"]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def datetime_from_micros(micros: int) -> _dt.datetime:
    """An aware UTC datetime from microseconds since the Unix epoch."""
    return _EPOCH + _dt.timedelta(microseconds=micros)


def enum_name(enum: Any, value: int, prefix: str) -> str:
    """The name of a protobuf enum value without its prefix; the number as text when unknown."""
    return str(enum.Name(value)).replace(prefix, "", 1) if value in enum.values() else str(value)


def _uuid_of(raw: bytes) -> _uuid.UUID:
    return _uuid.UUID(bytes=bytes(raw))


def _optional_enum(enum: Any, value: int, prefix: str) -> Optional[str]:
    return None if value == 0 else enum_name(enum, value, prefix)


@dataclass(frozen=True)
class Quantity:
    """A value in a unit ("count/min", "kcal", "mmHg")."""

    value: float
    unit: str
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Quantity:
        """Reads a `Quantity` message."""
        return cls(message.value, message.unit, message)

    @classmethod
    def optional(cls, parent: Any, name: str) -> Optional[Quantity]:
        """The Quantity field `name` of `parent`, or None when unset."""
        return cls.from_pb(getattr(parent, name)) if parent.HasField(name) else None


def _metadata_value(value: Any) -> MetadataScalar:
    kind = value.WhichOneof("value")
    if kind == "date_time":
        return datetime_from_micros(value.date_time)
    if kind == "quantity_value":
        return Quantity.from_pb(value.quantity_value)
    if kind is None:
        return ""
    scalar: MetadataScalar = getattr(value, kind)
    return scalar


def _metadata(entries: Any) -> Dict[str, MetadataScalar]:
    return {key: _metadata_value(value) for key, value in entries.items()}


@dataclass(frozen=True)
class Source:
    """An app (or the owner's tool) that saved data. In `sources` answers, `imported` says the
    owner's store first got it from an import (`save(..., keep_sources=True)`), at `imported_time`
    (microseconds since the Unix epoch)."""

    name: str
    bundle_id: str
    imported: bool = False
    imported_time: Optional[int] = None
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Source:
        """Reads a `Source` message."""
        imported = bool(message.imported)
        return cls(message.name, message.bundle_id, imported, int(message.imported_time) if imported else None, message)


@dataclass(frozen=True)
class SourceRevision:
    """The source plus the version, product type and OS version that saved a sample."""

    source: Source
    version: str
    product_type: str
    os_version: Tuple[int, int, int]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> SourceRevision:
        """Reads a `SourceRevision` message."""
        return cls(Source.from_pb(message.source), message.version, message.product_type,
                   (message.os_major, message.os_minor, message.os_patch), message)


@dataclass(frozen=True)
class Device:
    """The device that measured a sample; unset properties are empty strings."""

    name: str = ""
    manufacturer: str = ""
    model: str = ""
    hardware_version: str = ""
    firmware_version: str = ""
    software_version: str = ""
    local_identifier: str = ""
    udi_device_identifier: str = ""
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Device:
        """Reads a `Device` message."""
        return cls(message.name, message.manufacturer, message.model, message.hardware_version,
                   message.firmware_version, message.software_version, message.local_identifier,
                   message.udi_device_identifier, message)


@dataclass(frozen=True)
class WorkoutEvent:
    """A pause, resume, lap, marker or segment of a workout."""

    type: str
    start_time: int
    end_time: int
    metadata: Dict[str, MetadataScalar]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> WorkoutEvent:
        """Reads a `WorkoutEvent` message."""
        return cls(enum_name(pb.WorkoutEventType, message.type, "WORKOUT_EVENT_TYPE_"), message.start_time,
                   message.end_time, _metadata(message.metadata), message)


@dataclass(frozen=True)
class WorkoutStatistic:
    """A workout's summary of one quantity type."""

    quantity_type: str
    sum: Optional[Quantity]
    average: Optional[Quantity]
    minimum: Optional[Quantity]
    maximum: Optional[Quantity]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> WorkoutStatistic:
        """Reads a `WorkoutStatistic` message."""
        return cls(message.quantity_type, Quantity.optional(message, "sum"), Quantity.optional(message, "average"),
                   Quantity.optional(message, "minimum"), Quantity.optional(message, "maximum"), message)


@dataclass(frozen=True)
class WorkoutActivity:
    """One activity of a multi-activity workout."""

    uuid: _uuid.UUID
    activity_type: int
    start_time: int
    end_time: int
    metadata: Dict[str, MetadataScalar]
    events: List[WorkoutEvent]
    statistics: List[WorkoutStatistic]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> WorkoutActivity:
        """Reads a `WorkoutActivity` message."""
        return cls(_uuid_of(message.uuid), message.activity_type, message.start_time, message.end_time,
                   _metadata(message.metadata), [WorkoutEvent.from_pb(e) for e in message.events],
                   [WorkoutStatistic.from_pb(s) for s in message.statistics], message)


@dataclass(frozen=True)
class Workout:
    """A workout's body: activity type (HKWorkoutActivityType raw value), duration in µs and parts."""

    activity_type: int
    duration: int
    events: List[WorkoutEvent]
    activities: List[WorkoutActivity]
    statistics: List[WorkoutStatistic]
    associated_sample_uuids: List[_uuid.UUID]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Workout:
        """Reads a `WorkoutBody` message."""
        return cls(message.activity_type, message.duration, [WorkoutEvent.from_pb(e) for e in message.events],
                   [WorkoutActivity.from_pb(a) for a in message.activities],
                   [WorkoutStatistic.from_pb(s) for s in message.statistics],
                   [_uuid_of(u) for u in message.associated_sample_uuids], message)


@dataclass(frozen=True)
class Electrocardiogram:
    """An ECG's body (HealthKit raw values); its voltages are streamed separately (QuerySeriesData)."""

    classification: int
    symptoms_status: int
    average_heart_rate: Optional[Quantity]
    sampling_frequency: Optional[Quantity]
    number_of_voltage_measurements: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Electrocardiogram:
        """Reads an `ElectrocardiogramBody` message."""
        return cls(message.classification, message.symptoms_status, Quantity.optional(message, "average_heart_rate"),
                   Quantity.optional(message, "sampling_frequency"), message.number_of_voltage_measurements, message)


@dataclass(frozen=True)
class AudiogramTest:
    """One test at one frequency: sensitivity (dBHL), side (0 left, 1 right), conduction type, masking, clamping range."""

    sensitivity: Quantity
    side: int
    conduction_type: int
    masked: bool
    clamping_lower_bound: Optional[Quantity]
    clamping_upper_bound: Optional[Quantity]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> AudiogramTest:
        """Reads an `AudiogramSensitivityTest` message."""
        return cls(Quantity.from_pb(message.sensitivity), message.side, message.conduction_type, message.masked,
                   Quantity.optional(message, "clamping_lower_bound"), Quantity.optional(message, "clamping_upper_bound"), message)


@dataclass(frozen=True)
class AudiogramPoint:
    """The tests at one frequency of an audiogram."""

    frequency: Quantity
    tests: List[AudiogramTest]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> AudiogramPoint:
        """Reads an `AudiogramSensitivityPoint` message."""
        return cls(Quantity.from_pb(message.frequency), [AudiogramTest.from_pb(t) for t in message.tests], message)


@dataclass(frozen=True)
class StateOfMind:
    """A state of mind: kind, valence, the valence classification the server derived, labels, associations."""

    kind: int
    valence: float
    valence_classification: int
    labels: List[int]
    associations: List[int]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> StateOfMind:
        """Reads a `StateOfMindBody` message."""
        return cls(message.kind, message.valence, message.valence_classification, list(message.labels),
                   list(message.associations), message)


@dataclass(frozen=True)
class ScoredAssessment:
    """A GAD-7 or PHQ-9 assessment: answers, and the score and risk the server derived."""

    answers: List[int]
    score: int
    risk: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> ScoredAssessment:
        """Reads a `ScoredAssessmentBody` message."""
        return cls(list(message.answers), message.score, message.risk, message)


@dataclass(frozen=True)
class Sample:
    """A stored sample. `kind` says which body is set: `quantity` (with `count`), `category`,
    `objects` (a correlation's samples), `workout`, `series` (a route or heartbeat series, with `count`
    points; read them with `series_data`), `electrocardiogram`, `audiogram` (its points),
    `state_of_mind` or `scored_assessment`. A discrete quantity series sample (count > 1, made by a
    series builder) has `quantity` = the points' average and also `minimum`, `maximum`, `most_recent`
    and the most recent point's interval; they are None on every other sample."""

    uuid: _uuid.UUID
    type: str
    start_time: int
    end_time: int
    metadata: Dict[str, MetadataScalar]
    device: Optional[Device]
    source_revision: Optional[SourceRevision]
    creation_time: Optional[int]
    kind: str
    quantity: Optional[Quantity] = None
    count: int = 0
    category: Optional[int] = None
    objects: List[Sample] = field(default_factory=list)
    workout: Optional[Workout] = None
    electrocardiogram: Optional[Electrocardiogram] = None
    audiogram: List[AudiogramPoint] = field(default_factory=list)
    state_of_mind: Optional[StateOfMind] = None
    scored_assessment: Optional[ScoredAssessment] = None
    minimum: Optional[Quantity] = None
    maximum: Optional[Quantity] = None
    most_recent: Optional[Quantity] = None
    most_recent_start_time: Optional[int] = None
    most_recent_end_time: Optional[int] = None
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Sample:
        """Reads a `Sample` message."""
        kind = message.WhichOneof("body") or ""
        series = kind == "quantity" and message.quantity.HasField("most_recent")
        return cls(
            uuid=_uuid_of(message.uuid), type=message.type, start_time=message.start_time, end_time=message.end_time,
            metadata=_metadata(message.metadata),
            device=Device.from_pb(message.device) if message.HasField("device") else None,
            source_revision=SourceRevision.from_pb(message.source_revision) if message.HasField("source_revision") else None,
            creation_time=message.creation_time or None, kind=kind,
            quantity=Quantity.from_pb(message.quantity.quantity) if kind == "quantity" else None,
            count=message.quantity.count if kind == "quantity" else message.series.count if kind == "series" else 0,
            category=message.category.value if kind == "category" else None,
            objects=[Sample.from_pb(o) for o in message.correlation.objects] if kind == "correlation" else [],
            workout=Workout.from_pb(message.workout) if kind == "workout" else None,
            electrocardiogram=Electrocardiogram.from_pb(message.electrocardiogram) if kind == "electrocardiogram" else None,
            audiogram=[AudiogramPoint.from_pb(p) for p in message.audiogram.points] if kind == "audiogram" else [],
            state_of_mind=StateOfMind.from_pb(message.state_of_mind) if kind == "state_of_mind" else None,
            scored_assessment=ScoredAssessment.from_pb(message.scored_assessment) if kind == "scored_assessment" else None,
            minimum=Quantity.optional(message.quantity, "minimum") if series else None,
            maximum=Quantity.optional(message.quantity, "maximum") if series else None,
            most_recent=Quantity.optional(message.quantity, "most_recent") if series else None,
            most_recent_start_time=message.quantity.most_recent_start_time if series else None,
            most_recent_end_time=message.quantity.most_recent_end_time if series else None,
            raw=message)

    @property
    def start(self) -> _dt.datetime:
        """The start as an aware UTC datetime."""
        return datetime_from_micros(self.start_time)

    @property
    def end(self) -> _dt.datetime:
        """The end as an aware UTC datetime."""
        return datetime_from_micros(self.end_time)

    @property
    def bundle_id(self) -> str:
        """The bundle id of the app that saved the sample ("" before it is stored)."""
        return self.source_revision.source.bundle_id if self.source_revision else ""


@dataclass(frozen=True)
class QuantitySeriesPoint:
    """One quantity of a quantity series with its interval (start_time == end_time for an instant)."""

    quantity: Quantity
    start_time: int
    end_time: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> QuantitySeriesPoint:
        """Reads a `QuantitySeriesPoint` message."""
        return cls(Quantity.from_pb(message.quantity), message.start_time, message.end_time, message)


@dataclass(frozen=True)
class DeletedObject:
    """A deletion reported by an anchored query."""

    uuid: _uuid.UUID
    type: str
    metadata: Dict[str, MetadataScalar]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> DeletedObject:
        """Reads a `DeletedObject` message."""
        return cls(_uuid_of(message.uuid), message.type, _metadata(message.metadata), message)


class AnchoredResult(NamedTuple):
    """An anchored query's answer; unpacks as `samples, deleted, anchor`."""

    samples: List[Sample]
    deleted: List[DeletedObject]
    anchor: bytes


@dataclass(frozen=True)
class AnchoredPage:
    """One page of a long-running anchored query (initial pages, then one per change)."""

    samples: List[Sample]
    deleted: List[DeletedObject]
    new_anchor: bytes
    initial: bool
    initial_complete: bool
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> AnchoredPage:
        """Reads an `AnchoredPage` message."""
        return cls([Sample.from_pb(s) for s in message.samples], [DeletedObject.from_pb(d) for d in message.deleted],
                   message.new_anchor, message.initial, message.initial_complete, message)


@dataclass(frozen=True)
class SourceStatistics:
    """Statistics of one source (with the `separate_by_source` option)."""

    source: Source
    sum: Optional[Quantity]
    average: Optional[Quantity]
    minimum: Optional[Quantity]
    maximum: Optional[Quantity]
    most_recent: Optional[Quantity]
    duration: Optional[Quantity]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> SourceStatistics:
        """Reads a `SourceStatistics` message."""
        q = Quantity.optional
        return cls(Source.from_pb(message.source), q(message, "sum"), q(message, "average"), q(message, "minimum"),
                   q(message, "maximum"), q(message, "most_recent"), q(message, "duration"), message)


@dataclass(frozen=True)
class Statistics:
    """HKStatistics: the asked-for aggregates of one type over one interval (unset ones are None)."""

    type: str
    start_time: int
    end_time: int
    sum: Optional[Quantity]
    average: Optional[Quantity]
    minimum: Optional[Quantity]
    maximum: Optional[Quantity]
    most_recent: Optional[Quantity]
    most_recent_start_time: Optional[int]
    most_recent_end_time: Optional[int]
    duration: Optional[Quantity]
    by_source: List[SourceStatistics]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Statistics:
        """Reads a `Statistics` message."""
        q = Quantity.optional
        recent = message.HasField("most_recent")
        return cls(message.type, message.start_time, message.end_time, q(message, "sum"), q(message, "average"),
                   q(message, "minimum"), q(message, "maximum"), q(message, "most_recent"),
                   message.most_recent_start_time if recent else None, message.most_recent_end_time if recent else None,
                   q(message, "duration"), [SourceStatistics.from_pb(s) for s in message.by_source], message)

    @property
    def start(self) -> _dt.datetime:
        """The interval's start as an aware UTC datetime."""
        return datetime_from_micros(self.start_time)

    @property
    def end(self) -> _dt.datetime:
        """The interval's end as an aware UTC datetime."""
        return datetime_from_micros(self.end_time)


@dataclass(frozen=True)
class StatisticsCollectionPage:
    """One answer of a long-running statistics collection: the initial buckets, then changed ones."""

    buckets: List[Statistics]
    initial: bool
    initial_complete: bool
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> StatisticsCollectionPage:
        """Reads a `StatisticsCollectionResult` message."""
        return cls([Statistics.from_pb(b) for b in message.buckets], message.initial, message.initial_complete, message)


@dataclass(frozen=True)
class SampleCount:
    """How many readable samples of a type one source and device hold."""

    type: str
    source: Source
    device: Optional[Device]
    count: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> SampleCount:
        """Reads a `SampleCount` message."""
        return cls(message.type, Source.from_pb(message.source),
                   Device.from_pb(message.device) if message.HasField("device") else None, message.count, message)


@dataclass(frozen=True)
class ActivitySummary:
    """HKActivitySummary of one day."""

    day: _dt.date
    active_energy_burned: Optional[Quantity]
    exercise_time: Optional[Quantity]
    stand_hours: Optional[Quantity]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> ActivitySummary:
        """Reads an `ActivitySummary` message."""
        q = Quantity.optional
        return cls(_dt.date(message.day.year, message.day.month, message.day.day), q(message, "active_energy_burned"),
                   q(message, "exercise_time"), q(message, "stand_hours"), message)


@dataclass(frozen=True)
class Characteristics:
    """The owner's characteristics; unset or unreadable ones are None. Enum values are names
    ("FEMALE", "A_POSITIVE", "I", "NO", "ACTIVE_ENERGY")."""

    biological_sex: Optional[str]
    blood_type: Optional[str]
    date_of_birth: Optional[_dt.date]
    fitzpatrick_skin_type: Optional[str]
    wheelchair_use: Optional[str]
    activity_move_mode: Optional[str]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Characteristics:
        """Reads a `Characteristics` message."""
        born = message.date_of_birth
        return cls(_optional_enum(pb.BiologicalSex, message.biological_sex, "BIOLOGICAL_SEX_"),
                   _optional_enum(pb.BloodType, message.blood_type, "BLOOD_TYPE_"),
                   _dt.date(born.year, born.month, born.day) if message.HasField("date_of_birth") else None,
                   _optional_enum(pb.FitzpatrickSkinType, message.fitzpatrick_skin_type, "FITZPATRICK_SKIN_TYPE_"),
                   _optional_enum(pb.WheelchairUse, message.wheelchair_use, "WHEELCHAIR_USE_"),
                   _optional_enum(pb.ActivityMoveMode, message.activity_move_mode, "ACTIVITY_MOVE_MODE_"), message)


@dataclass(frozen=True)
class HelloInfo:
    """What the server said to Hello: its version and limits, and who the caller is."""

    server_version: str
    protocol_version: int
    max_frame_bytes: int
    max_calls_in_flight: int
    max_batch_objects: int
    server_time: int
    role: str
    owner_name: str
    source: Optional[Source]
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> HelloInfo:
        """Reads a `HelloResult` message."""
        return cls(message.server_version, message.protocol_version, message.max_frame_bytes,
                   message.max_calls_in_flight, message.max_batch_objects, message.server_time,
                   enum_name(pb.Role, message.role, "ROLE_"), message.owner_name,
                   Source.from_pb(message.source) if message.HasField("source") else None, message)


@dataclass(frozen=True)
class Pong:
    """The answer to Ping: the payload back and the server's clock (µs)."""

    payload: bytes
    server_time: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Pong:
        """Reads a `Pong` message."""
        return cls(message.payload, message.server_time, message)


@dataclass(frozen=True)
class App:
    """A registered app."""

    bundle_id: str
    name: str
    created_time: int
    revoked: bool
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> App:
        """Reads an `App` message."""
        return cls(message.source.bundle_id, message.source.name, message.created_time, message.revoked, message)


@dataclass(frozen=True)
class AuthorizationRequest:
    """An app's pending request to share ("SHARE") or read ("READ") a type."""

    app: Source
    type: str
    direction: str
    requested_time: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> AuthorizationRequest:
        """Reads an `AuthorizationRequest` message."""
        return cls(Source.from_pb(message.app), message.type,
                   enum_name(pb.AccessDirection, message.direction, "ACCESS_DIRECTION_"), message.requested_time, message)


@dataclass(frozen=True)
class Permission:
    """One permission of an app: type, direction ("SHARE"/"READ") and state ("PENDING", "GRANTED", "DENIED")."""

    type: str
    direction: str
    state: str
    updated_time: int
    raw: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_pb(cls, message: Any) -> Permission:
        """Reads a `Permission` message."""
        return cls(message.type, enum_name(pb.AccessDirection, message.direction, "ACCESS_DIRECTION_"),
                   enum_name(pb.PermissionState, message.state, "PERMISSION_STATE_"), message.updated_time, message)


@dataclass(frozen=True)
class RouteLocation:
    """One location of a workout route (a CLLocation); negative accuracies, course and speed mean "not known"."""

    time: int
    latitude: float
    longitude: float
    altitude: float
    horizontal_accuracy: float
    vertical_accuracy: float
    course: float
    course_accuracy: float
    speed: float
    speed_accuracy: float

    @classmethod
    def from_pb(cls, message: Any) -> RouteLocation:
        """Reads a `RouteLocation` message."""
        return cls(time=message.time, latitude=message.latitude, longitude=message.longitude, altitude=message.altitude,
                   horizontal_accuracy=message.horizontal_accuracy, vertical_accuracy=message.vertical_accuracy,
                   course=message.course, course_accuracy=message.course_accuracy, speed=message.speed,
                   speed_accuracy=message.speed_accuracy)


@dataclass(frozen=True)
class Heartbeat:
    """One beat of a heartbeat series: µs since the series start, and whether beats were missed just before it."""

    offset: int
    preceded_by_gap: bool

    @classmethod
    def from_pb(cls, message: Any) -> Heartbeat:
        """Reads a `Heartbeat` message."""
        return cls(offset=message.offset, preceded_by_gap=message.preceded_by_gap)


@dataclass(frozen=True)
class VoltageMeasurement:
    """One voltage of an electrocardiogram: µs since the recording's start, and the Lead I–like microvolts."""

    offset: int
    microvolts: float

    @classmethod
    def from_pb(cls, message: Any) -> VoltageMeasurement:
        """Reads a `VoltageMeasurement` message."""
        return cls(offset=message.offset, microvolts=message.microvolts)


@dataclass(frozen=True)
class SeriesPage:
    """One page of a series sample's points (the list matching the sample's kind); `done` on its last page."""

    sample_uuid: _uuid.UUID
    locations: List[RouteLocation]
    beats: List[Heartbeat]
    done: bool
    quantities: List[QuantitySeriesPoint] = field(default_factory=list)
    voltages: List[VoltageMeasurement] = field(default_factory=list)

    @classmethod
    def from_pb(cls, message: Any) -> SeriesPage:
        """Reads a `SeriesDataPage` message."""
        return cls(sample_uuid=_uuid_of(message.sample_uuid), locations=[RouteLocation.from_pb(m) for m in message.locations],
                   beats=[Heartbeat.from_pb(m) for m in message.beats], done=message.sample_done,
                   quantities=[QuantitySeriesPoint.from_pb(m) for m in message.quantities],
                   voltages=[VoltageMeasurement.from_pb(m) for m in message.voltages])
