"""Series builders (HKWorkoutRouteBuilder, HKHeartbeatSeriesBuilder, HKQuantitySeriesSampleBuilder)
over `Client` or `AsyncClient`.

    builder = route_builder(client)
    builder.insert([values.route_location(t, 47.37, 8.54) for t in times])   # time order, batch by batch
    route = builder.finish(workout=workout_uuid)                              # the stored route sample
    for page in client.series_data(route.uuid, batch_size=1000):
        ...

    steps = quantity_series_builder(client, "StepCount", start=t0)
    steps.insert([(42, "count", t0, t0 + 60_000_000), (57, "count", t0 + 60_000_000, t0 + 120_000_000)])
    [sample] = steps.finish()                                                 # one sample, count = 2
    for page in client.quantity_series_data("HKQuantityTypeIdentifierStepCount", predicate=...):
        ...

On an `AsyncClient` every method returns an awaitable instead.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any, Iterable, Mapping, Optional, Tuple, Union

from .v1 import healthstore_pb2 as pb
from .values import HEARTBEAT_SERIES, ROUTE, Time, UUIDLike, micros, quantity_point, quantity_type, uuid_bytes

QuantityPoint = Union[Any, Tuple[float, str, Time], Tuple[float, str, Time, Time]]
"""A `values.quantity_point` message or (value, unit, start[, end])."""


class SeriesBuilder:
    """An open builder on the server: its id is the finished sample's UUID. Each call repeats the
    type, start, device and source, so a builder outlives a reconnect. With `as_source` (owner only:
    an import; a `values.source_revision`) the series is built and saved as that source."""

    def __init__(self, client: Any, type_id: str, start: Time = 0, builder_id: Optional[UUIDLike] = None,
                 device: Optional[Any] = None, as_source: Optional[Any] = None) -> None:
        self.client = client
        self.type = type_id
        self.start = micros(start)
        self.id = _uuid.UUID(bytes=uuid_bytes(builder_id))
        self.device = device
        self.as_source = as_source

    def insert(self, points: Iterable[Any]) -> Any:
        """Adds `values.route_location`, `values.heartbeat` or quantity points (`QuantityPoint`) after
        those added so far; returns how many points the builder holds."""
        given = {"device": self.device, "as_source": self.as_source}
        if self.type == ROUTE:
            return self.client.insert_series_data(self.id, self.type, locations=list(points), **given)
        if self.type == HEARTBEAT_SERIES:
            return self.client.insert_series_data(self.id, self.type, start=self.start, beats=list(points), **given)
        quantities = [p if isinstance(p, pb.QuantitySeriesPoint) else quantity_point(*p) for p in points]
        return self.client.insert_series_data(self.id, self.type, start=self.start, quantities=quantities, **given)

    def finish(self, workout: Optional[UUIDLike] = None, metadata: Optional[Mapping[str, Any]] = None,
               end: Optional[Time] = None) -> Any:
        """Stores the sample and returns the stored samples (one; none when a stored one with the same
        sync identifier and a version at least as high is kept). A second finish fails."""
        return self.client.finish_series(self.id, workout=workout, metadata=metadata, end=end)

    def discard(self) -> Any:
        """Drops the builder and its points."""
        return self.client.discard_series(self.id)


def route_builder(client: Any, builder_id: Optional[UUIDLike] = None, device: Optional[Any] = None,
                  as_source: Optional[Any] = None) -> SeriesBuilder:
    """A new workout route builder; finish it with the stored workout the route belongs to."""
    return SeriesBuilder(client, ROUTE, builder_id=builder_id, device=device, as_source=as_source)


def heartbeat_builder(client: Any, start: Time, builder_id: Optional[UUIDLike] = None, device: Optional[Any] = None,
                      as_source: Optional[Any] = None) -> SeriesBuilder:
    """A new heartbeat series builder for a series starting at `start` (beats are µs offsets from it)."""
    return SeriesBuilder(client, HEARTBEAT_SERIES, start=start, builder_id=builder_id, device=device, as_source=as_source)


def quantity_series_builder(client: Any, type_id: str, start: Time, builder_id: Optional[UUIDLike] = None,
                            device: Optional[Any] = None, as_source: Optional[Any] = None) -> SeriesBuilder:
    """A new quantity series builder (`type_id` short, "HeartRate", or a full identifier) whose points
    finish into one quantity sample with count = the points and UUID = the builder id."""
    return SeriesBuilder(client, quantity_type(type_id), start=start, builder_id=builder_id, device=device, as_source=as_source)
