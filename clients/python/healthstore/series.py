"""Series builders (HKWorkoutRouteBuilder, HKHeartbeatSeriesBuilder) over `Client` or `AsyncClient`.

    builder = route_builder(client)
    builder.insert([values.route_location(t, 47.37, 8.54) for t in times])   # time order, batch by batch
    route = builder.finish(workout=workout_uuid)                              # the stored route sample
    for page in client.series_data(route.uuid, batch_size=1000):
        ...

On an `AsyncClient` every method returns an awaitable instead.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any, Iterable, Mapping, Optional

from .values import HEARTBEAT_SERIES, ROUTE, Time, UUIDLike, micros, uuid_bytes


class SeriesBuilder:
    """An open builder on the server: its id is the finished sample's UUID. Each call repeats the
    type, start and device, so a builder outlives a reconnect."""

    def __init__(self, client: Any, type_id: str, start: Time = 0, builder_id: Optional[UUIDLike] = None,
                 device: Optional[Any] = None) -> None:
        self.client = client
        self.type = type_id
        self.start = micros(start)
        self.id = _uuid.UUID(bytes=uuid_bytes(builder_id))
        self.device = device

    def insert(self, points: Iterable[Any]) -> Any:
        """Adds `values.route_location` or `values.heartbeat` messages after those added so far; returns
        how many points the builder holds."""
        key = "beats" if self.type == HEARTBEAT_SERIES else "locations"
        return self.client.insert_series_data(self.id, self.type, start=self.start, device=self.device, **{key: list(points)})

    def finish(self, workout: Optional[UUIDLike] = None, metadata: Optional[Mapping[str, Any]] = None,
               end: Optional[Time] = None) -> Any:
        """Stores the sample and returns the stored samples (one; none when a stored one with the same
        sync identifier and a version at least as high is kept). A second finish fails."""
        return self.client.finish_series(self.id, workout=workout, metadata=metadata, end=end)

    def discard(self) -> Any:
        """Drops the builder and its points."""
        return self.client.discard_series(self.id)


def route_builder(client: Any, builder_id: Optional[UUIDLike] = None, device: Optional[Any] = None) -> SeriesBuilder:
    """A new workout route builder; finish it with the stored workout the route belongs to."""
    return SeriesBuilder(client, ROUTE, builder_id=builder_id, device=device)


def heartbeat_builder(client: Any, start: Time, builder_id: Optional[UUIDLike] = None, device: Optional[Any] = None) -> SeriesBuilder:
    """A new heartbeat series builder for a series starting at `start` (beats are µs offsets from it)."""
    return SeriesBuilder(client, HEARTBEAT_SERIES, start=start, builder_id=builder_id, device=device)
