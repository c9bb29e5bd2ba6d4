"""The typed results read a discrete quantity series sample's minimum, maximum and most recent point,
and quantity series points; other samples leave those fields unset."""

from healthstore import pb, results

HR = "HKQuantityTypeIdentifierHeartRate"


def _quantity(target: pb.Quantity, value: float) -> None:
    target.value = value
    target.unit = "count/min"


def test_a_discrete_series_sample_carries_its_summary() -> None:
    message = pb.Sample(uuid=bytes(16), type=HR, start_time=10, end_time=90)
    _quantity(message.quantity.quantity, 72.5)
    message.quantity.count = 40
    _quantity(message.quantity.minimum, 58)
    _quantity(message.quantity.maximum, 131)
    _quantity(message.quantity.most_recent, 96)
    message.quantity.most_recent_start_time = 80
    message.quantity.most_recent_end_time = 85
    sample = results.Sample.from_pb(message)
    assert (sample.count, sample.quantity and sample.quantity.value) == (40, 72.5)
    assert [q and q.value for q in (sample.minimum, sample.maximum, sample.most_recent)] == [58, 131, 96]
    assert (sample.most_recent_start_time, sample.most_recent_end_time) == (80, 85)


def test_an_ordinary_sample_has_no_summary() -> None:
    message = pb.Sample(uuid=bytes(16), type=HR, start_time=10, end_time=10)
    _quantity(message.quantity.quantity, 60)
    sample = results.Sample.from_pb(message)
    assert (sample.minimum, sample.maximum, sample.most_recent, sample.most_recent_start_time) == (None, None, None, None)


def test_a_quantity_series_point_reads_its_interval() -> None:
    message = pb.QuantitySeriesPoint(start_time=5, end_time=9)
    _quantity(message.quantity, 61)
    point = results.QuantitySeriesPoint.from_pb(message)
    assert (point.quantity.value, point.quantity.unit, point.start_time, point.end_time) == (61, "count/min", 5, 9)
