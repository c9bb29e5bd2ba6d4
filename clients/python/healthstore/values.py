"""Builders for protocol values: times, UUIDs, metadata, samples and predicates."""

import datetime as _dt
import uuid as _uuid

from .v1 import healthstore_pb2 as pb

QUANTITY = "HKQuantityTypeIdentifier"
CATEGORY = "HKCategoryTypeIdentifier"
CORRELATION = "HKCorrelationTypeIdentifier"
WORKOUT = "HKWorkoutTypeIdentifier"


def micros(value):
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


def now_micros():
    """The current time in microseconds since the Unix epoch."""
    return micros(_dt.datetime.now(_dt.timezone.utc))


def uuid_bytes(value=None):
    """16 raw bytes of a UUID (a new random one when value is None)."""
    if value is None:
        return _uuid.uuid4().bytes
    if isinstance(value, _uuid.UUID):
        return value.bytes
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return bytes(value)
    return _uuid.UUID(str(value)).bytes


def uuid_string(raw):
    """Canonical text of a 16-byte UUID."""
    return str(_uuid.UUID(bytes=bytes(raw)))


def metadata_value(value):
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


def _fill_common(sample, type_id, start, end, uuid, metadata, device):
    sample.uuid = uuid_bytes(uuid)
    sample.type = type_id
    sample.start_time = micros(start)
    sample.end_time = micros(end if end is not None else start)
    for key, value in (metadata or {}).items():
        sample.metadata[key].CopyFrom(metadata_value(value))
    if device is not None:
        sample.device.CopyFrom(device if isinstance(device, pb.Device) else pb.Device(**device))
    return sample


def _type(name, prefix):
    return name if name.startswith("HK") else prefix + name


def quantity_sample(type_id, value, unit, start, end=None, uuid=None, metadata=None, device=None, count=0):
    """A quantity sample; `type_id` may be short ("HeartRate") or a full identifier."""
    sample = _fill_common(pb.Sample(), _type(type_id, QUANTITY), start, end, uuid, metadata, device)
    sample.quantity.quantity.value = float(value)
    sample.quantity.quantity.unit = unit
    sample.quantity.count = count
    return sample


def category_sample(type_id, value, start, end=None, uuid=None, metadata=None, device=None):
    """A category sample with a raw category value."""
    sample = _fill_common(pb.Sample(), _type(type_id, CATEGORY), start, end, uuid, metadata, device)
    sample.category.value = int(value)
    return sample


def correlation(type_id, objects, start, end=None, uuid=None, metadata=None, device=None):
    """A correlation holding quantity/category samples (e.g. "BloodPressure")."""
    sample = _fill_common(pb.Sample(), _type(type_id, CORRELATION), start, end, uuid, metadata, device)
    sample.correlation.objects.extend(objects)
    return sample


def workout(activity_type, start, end, uuid=None, metadata=None, device=None, events=(), statistics=(),
            activities=(), associated=()):
    """A workout (HKWorkoutActivityType raw value) with optional events, statistics and associations."""
    sample = _fill_common(pb.Sample(), WORKOUT, start, end, uuid, metadata, device)
    sample.workout.activity_type = activity_type
    sample.workout.events.extend(events)
    sample.workout.statistics.extend(statistics)
    sample.workout.activities.extend(activities)
    sample.workout.associated_sample_uuids.extend(uuid_bytes(u) for u in associated)
    return sample


def date_range(start=None, end=None, strict_start=False, strict_end=False):
    """predicateForSamples(withStart:end:options:)."""
    pred = pb.DateRangePredicate(strict_start=strict_start, strict_end=strict_end)
    if start is not None:
        pred.has_start, pred.start_time = True, micros(start)
    if end is not None:
        pred.has_end, pred.end_time = True, micros(end)
    return pb.Predicate(date_range=pred)


def from_sources(*bundle_ids):
    """predicateForObjects(from: sources)."""
    return pb.Predicate(sources=pb.SourcesPredicate(bundle_ids=list(bundle_ids)))


def all_of(*predicates):
    """AND of predicates."""
    return pb.Predicate(all_of=pb.PredicateList(predicates=list(predicates)))


def any_of(*predicates):
    """OR of predicates."""
    return pb.Predicate(any_of=pb.PredicateList(predicates=list(predicates)))


def statistics_options(*names):
    """StatisticsOptions from names like "cumulative_sum", "discrete_average", "separate_by_source"."""
    return pb.StatisticsOptions(**{name: True for name in names})
