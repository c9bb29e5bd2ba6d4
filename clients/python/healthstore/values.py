"""Builders for protocol values: times, UUIDs, metadata, samples and predicates.

The builders return protobuf messages, ready for `Client.save` and the query calls.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from typing import Any, Iterable, Mapping, Optional, Tuple, Union, overload

from .v1 import healthstore_pb2 as pb

QUANTITY = "HKQuantityTypeIdentifier"
CATEGORY = "HKCategoryTypeIdentifier"
CORRELATION = "HKCorrelationTypeIdentifier"
WORKOUT = "HKWorkoutTypeIdentifier"

Time = Union[int, float, _dt.datetime]
"""Microseconds since the Unix epoch (int), seconds (float) or a datetime (naive = UTC)."""
UUIDLike = Union[_uuid.UUID, bytes, str]
"""A `uuid.UUID`, its text, or its 16 raw bytes."""
DeviceLike = Union[Any, Mapping[str, str]]
"""A `Device` message or a dict of its fields."""
MetadataInput = Union[str, bool, int, float, _dt.datetime, Tuple[float, str], Any]
"""A metadata value: str, bool, int, float, datetime, (value, unit) or a `MetadataValue` message."""


@overload
def micros(value: None) -> None: ...
@overload
def micros(value: Union[int, float, _dt.datetime]) -> int: ...


def micros(value: Union[None, int, float, _dt.datetime]) -> Optional[int]:
    """Microseconds since the Unix epoch from an int (already µs), a float (seconds) or a datetime."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError("a time cannot be a bool")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(round(value * 1_000_000))
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        delta = value - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    raise TypeError(f"cannot read a time from {value!r}")


def now_micros() -> int:
    """The current time in microseconds since the Unix epoch."""
    return micros(_dt.datetime.now(_dt.timezone.utc))


def uuid_bytes(value: Union[None, _uuid.UUID, bytes, bytearray, str] = None) -> bytes:
    """16 raw bytes of a UUID (a new random one when value is None)."""
    if value is None:
        return _uuid.uuid4().bytes
    if isinstance(value, _uuid.UUID):
        return value.bytes
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return bytes(value)
    return _uuid.UUID(str(value)).bytes


def uuid_string(raw: bytes) -> str:
    """Canonical text of a 16-byte UUID."""
    return str(_uuid.UUID(bytes=bytes(raw)))


def metadata_value(value: MetadataInput) -> Any:
    """A MetadataValue from a Python value (str, bool, int, float, datetime or (value, unit))."""
    if isinstance(value, pb.MetadataValue):
        return value
    if isinstance(value, str):
        return pb.MetadataValue(string_value=value)
    if isinstance(value, bool):
        return pb.MetadataValue(bool_value=value)
    if isinstance(value, int):
        return pb.MetadataValue(int_value=value)
    if isinstance(value, float):
        return pb.MetadataValue(double_value=value)
    if isinstance(value, _dt.datetime):
        return pb.MetadataValue(date_time=micros(value))
    if isinstance(value, tuple) and len(value) == 2:
        return pb.MetadataValue(quantity_value=pb.Quantity(value=float(value[0]), unit=value[1]))
    raise TypeError(f"unsupported metadata value {value!r}")


def _fill_common(sample: Any, type_id: str, start: Time, end: Optional[Time], uuid: Optional[UUIDLike],
                 metadata: Optional[Mapping[str, MetadataInput]], device: Optional[DeviceLike]) -> Any:
    sample.uuid = uuid_bytes(uuid)
    sample.type = type_id
    sample.start_time = micros(start)
    sample.end_time = micros(end if end is not None else start)
    for key, value in (metadata or {}).items():
        sample.metadata[key].CopyFrom(metadata_value(value))
    if device is not None:
        sample.device.CopyFrom(device if isinstance(device, pb.Device) else pb.Device(**device))
    return sample


def source_revision(name: str, bundle_id: str = "", version: str = "", product_type: str = "",
                    os_version: Tuple[int, int, int] = (0, 0, 0)) -> Any:
    """A source revision an owner's import saves or builds as (`from_source`, a series builder's
    `as_source`); an empty `bundle_id` is derived from `name` by the server."""
    major, minor, patch = os_version
    return pb.SourceRevision(source=pb.Source(name=name, bundle_id=bundle_id), version=version,
                             product_type=product_type, os_major=major, os_minor=minor, os_patch=patch)


def from_source(sample: Any, name: str, bundle_id: str = "", version: str = "", product_type: str = "",
                os_version: Tuple[int, int, int] = (0, 0, 0)) -> Any:
    """Sets the source revision a sample is saved as by `save(..., keep_sources=True)` (an owner's
    import); an empty `bundle_id` is derived from `name` by the server. Returns the sample."""
    sample.source_revision.CopyFrom(source_revision(name, bundle_id, version, product_type, os_version))
    return sample


def _type(name: str, prefix: str) -> str:
    return name if name.startswith("HK") else prefix + name


def quantity_type(name: str) -> str:
    """The identifier of a quantity type named short ("HeartRate") or in full."""
    return _type(name, QUANTITY)


def quantity_sample(type_id: str, value: float, unit: str, start: Time, end: Optional[Time] = None, uuid: Optional[UUIDLike] = None,
                    metadata: Optional[Mapping[str, MetadataInput]] = None, device: Optional[DeviceLike] = None,
                    count: int = 0) -> Any:
    """A quantity sample; `type_id` may be short ("HeartRate") or a full identifier."""
    sample = _fill_common(pb.Sample(), quantity_type(type_id), start, end, uuid, metadata, device)
    sample.quantity.quantity.value = float(value)
    sample.quantity.quantity.unit = unit
    sample.quantity.count = count
    return sample


def category_sample(type_id: str, value: int, start: Time, end: Optional[Time] = None, uuid: Optional[UUIDLike] = None,
                    metadata: Optional[Mapping[str, MetadataInput]] = None, device: Optional[DeviceLike] = None) -> Any:
    """A category sample with a raw category value."""
    sample = _fill_common(pb.Sample(), _type(type_id, CATEGORY), start, end, uuid, metadata, device)
    sample.category.value = int(value)
    return sample


def correlation(type_id: str, objects: Iterable[Any], start: Time, end: Optional[Time] = None, uuid: Optional[UUIDLike] = None,
                metadata: Optional[Mapping[str, MetadataInput]] = None, device: Optional[DeviceLike] = None) -> Any:
    """A correlation holding quantity/category samples (e.g. "BloodPressure")."""
    sample = _fill_common(pb.Sample(), _type(type_id, CORRELATION), start, end, uuid, metadata, device)
    sample.correlation.objects.extend(objects)
    return sample


def workout(activity_type: int, start: Time, end: Time, uuid: Optional[UUIDLike] = None,
            metadata: Optional[Mapping[str, MetadataInput]] = None, device: Optional[DeviceLike] = None,
            events: Iterable[Any] = (), statistics: Iterable[Any] = (), activities: Iterable[Any] = (),
            associated: Iterable[UUIDLike] = ()) -> Any:
    """A workout (HKWorkoutActivityType raw value) with optional events, statistics and associations."""
    sample = _fill_common(pb.Sample(), WORKOUT, start, end, uuid, metadata, device)
    sample.workout.activity_type = activity_type
    sample.workout.events.extend(events)
    sample.workout.statistics.extend(statistics)
    sample.workout.activities.extend(activities)
    sample.workout.associated_sample_uuids.extend(uuid_bytes(u) for u in associated)
    return sample


def date_range(start: Optional[Time] = None, end: Optional[Time] = None, strict_start: bool = False,
               strict_end: bool = False) -> Any:
    """predicateForSamples(withStart:end:options:)."""
    pred = pb.DateRangePredicate(strict_start=strict_start, strict_end=strict_end)
    if start is not None:
        pred.has_start, pred.start_time = True, micros(start)
    if end is not None:
        pred.has_end, pred.end_time = True, micros(end)
    return pb.Predicate(date_range=pred)


def from_sources(*bundle_ids: str) -> Any:
    """predicateForObjects(from: sources)."""
    return pb.Predicate(sources=pb.SourcesPredicate(bundle_ids=list(bundle_ids)))


def all_of(*predicates: Any) -> Any:
    """AND of predicates."""
    return pb.Predicate(all_of=pb.PredicateList(predicates=list(predicates)))


def any_of(*predicates: Any) -> Any:
    """OR of predicates."""
    return pb.Predicate(any_of=pb.PredicateList(predicates=list(predicates)))


def statistics_options(*names: str) -> Any:
    """StatisticsOptions from names like "cumulative_sum", "discrete_average", "separate_by_source"."""
    return pb.StatisticsOptions(**{name: True for name in names})


ROUTE = "HKWorkoutRouteTypeIdentifier"
HEARTBEAT_SERIES = "HKDataTypeIdentifierHeartbeatSeries"


def route_location(time: Time, latitude: float, longitude: float, altitude: float = 0, horizontal_accuracy: float = 0,
                   vertical_accuracy: float = -1, course: float = -1, course_accuracy: float = -1, speed: float = -1,
                   speed_accuracy: float = -1) -> Any:
    """A `RouteLocation` message (CoreLocation's conventions: negative = not known)."""
    return pb.RouteLocation(time=micros(time), latitude=latitude, longitude=longitude, altitude=altitude,
                            horizontal_accuracy=horizontal_accuracy, vertical_accuracy=vertical_accuracy, course=course,
                            course_accuracy=course_accuracy, speed=speed, speed_accuracy=speed_accuracy)


def heartbeat(offset: int, preceded_by_gap: bool = False) -> Any:
    """A `Heartbeat` message: `offset` µs after the series start."""
    return pb.Heartbeat(offset=offset, preceded_by_gap=preceded_by_gap)


def quantity_point(value: float, unit: str, start: Time, end: Optional[Time] = None) -> Any:
    """A `QuantitySeriesPoint` message: a quantity over [start, end] (an instant without `end`)."""
    begin = micros(start)
    return pb.QuantitySeriesPoint(quantity=pb.Quantity(value=float(value), unit=unit), start_time=begin,
                                  end_time=begin if end is None else micros(end))


ELECTROCARDIOGRAM = "HKDataTypeIdentifierElectrocardiogram"
AUDIOGRAM = "HKDataTypeIdentifierAudiogram"
STATE_OF_MIND = "HKDataTypeIdentifierStateOfMind"
GAD7 = "HKScoredAssessmentTypeIdentifierGAD7"
PHQ9 = "HKScoredAssessmentTypeIdentifierPHQ9"


def electrocardiogram(start: Time, end: Time, sampling_frequency_hz: float, voltages: Iterable[Tuple[int, float]] = (),
                      classification: int = 0, symptoms_status: int = 0, average_heart_rate: Optional[float] = None,
                      uuid: Optional[UUIDLike] = None, metadata: Optional[Mapping[str, MetadataInput]] = None,
                      device: Optional[DeviceLike] = None) -> Any:
    """An electrocardiogram (HKElectrocardiogram) with its voltages as (µs since start, µV) pairs. Only
    the owner saves them; raw values are HealthKit's (classification 1 = sinusRhythm, …)."""
    sample = _fill_common(pb.Sample(), ELECTROCARDIOGRAM, start, end, uuid, metadata, device)
    body = sample.electrocardiogram
    body.classification = classification
    body.symptoms_status = symptoms_status
    body.sampling_frequency.CopyFrom(pb.Quantity(value=float(sampling_frequency_hz), unit="Hz"))
    if average_heart_rate is not None:
        body.average_heart_rate.CopyFrom(pb.Quantity(value=float(average_heart_rate), unit="count/min"))
    body.voltages.extend(pb.VoltageMeasurement(offset=int(o), microvolts=float(uv)) for o, uv in voltages)
    return sample


def audiogram_test(sensitivity_dbhl: float, side: int, masked: bool = False, conduction_type: int = 0,
                   clamping: Tuple[Optional[float], Optional[float]] = (None, None)) -> Any:
    """One test of an audiogram point (HKAudiogramSensitivityTest): side 0 = left, 1 = right."""
    test = pb.AudiogramSensitivityTest(sensitivity=pb.Quantity(value=float(sensitivity_dbhl), unit="dBHL"),
                                       conduction_type=conduction_type, masked=masked, side=side)
    lower, upper = clamping
    if lower is not None:
        test.clamping_lower_bound.CopyFrom(pb.Quantity(value=float(lower), unit="dBHL"))
    if upper is not None:
        test.clamping_upper_bound.CopyFrom(pb.Quantity(value=float(upper), unit="dBHL"))
    return test


def audiogram(points: Iterable[Tuple[float, Iterable[Any]]], start: Time, end: Optional[Time] = None,
              uuid: Optional[UUIDLike] = None, metadata: Optional[Mapping[str, MetadataInput]] = None,
              device: Optional[DeviceLike] = None) -> Any:
    """An audiogram (HKAudiogramSample): (frequency in Hz, [audiogram_test(...), …]) per frequency."""
    sample = _fill_common(pb.Sample(), AUDIOGRAM, start, end, uuid, metadata, device)
    for hertz, tests in points:
        sample.audiogram.points.add(frequency=pb.Quantity(value=float(hertz), unit="Hz")).tests.extend(tests)
    return sample


def state_of_mind(kind: int, valence: float, at: Time, labels: Iterable[int] = (), associations: Iterable[int] = (),
                  uuid: Optional[UUIDLike] = None, metadata: Optional[Mapping[str, MetadataInput]] = None,
                  device: Optional[DeviceLike] = None) -> Any:
    """A state of mind (HKStateOfMind) at one moment: kind 1 = momentary emotion, 2 = daily mood;
    valence −1…1; HealthKit's Label and Association raw values. The server derives the classification."""
    sample = _fill_common(pb.Sample(), STATE_OF_MIND, at, at, uuid, metadata, device)
    sample.state_of_mind.kind = kind
    sample.state_of_mind.valence = float(valence)
    sample.state_of_mind.labels.extend(labels)
    sample.state_of_mind.associations.extend(associations)
    return sample


def scored_assessment(type_id: str, answers: Iterable[int], at: Time, uuid: Optional[UUIDLike] = None,
                      metadata: Optional[Mapping[str, MetadataInput]] = None, device: Optional[DeviceLike] = None) -> Any:
    """A GAD-7 or PHQ-9 assessment ("GAD7", "PHQ9" or the identifier) with one answer raw value per
    question; the server derives the score and risk."""
    sample = _fill_common(pb.Sample(), _type(type_id, "HKScoredAssessmentTypeIdentifier"), at, at, uuid, metadata, device)
    sample.scored_assessment.answers.extend(answers)
    return sample
