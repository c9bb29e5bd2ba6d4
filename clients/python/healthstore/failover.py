"""What the blocking and the asyncio client share to move to another node of the store when their
connection is lost: when to fail over, how long to wait between rounds, and the errors."""

from __future__ import annotations

import time
from typing import Any, Iterator, List, Optional, Union

from . import errors
from .connection import NOT_REPEATABLE, Address, ServerList, unreachable


class FailoverState:
    """A client's connection generation (one per connection made) and whether it may fail over."""

    _failover: Optional[Any] = None
    _closed_by_user = False
    _generation = 0
    closed_error: Optional[errors.HealthStoreError] = None

    def _connection_lost(self, since: int) -> bool:
        """True when the connection of generation `since` is gone (it ended, or another caller
        already replaced it) and the client may fail over."""
        if self._failover is None or self._closed_by_user:
            return False
        return self.closed_error is not None or self._generation != since


class Reconnection:
    """The steps of one reconnection: each node in dialing order, then a pause (50 ms doubling to
    2 s) and another round, until `timeout` s have passed; the client reports each node's failure."""

    def __init__(self, servers: ServerList, timeout: float) -> None:
        self._servers = servers
        self._deadline = time.monotonic() + timeout
        self._failures: List[errors.Unavailable] = []

    def steps(self) -> Iterator[Union[Address, float]]:
        """Addresses to try, and seconds to wait between rounds; raises Unavailable when time is up."""
        delay = 0.05
        while True:
            self._failures = []
            yield from self._servers.dial_order()
            if time.monotonic() + delay > self._deadline:
                raise unreachable(self._failures)
            yield delay
            delay = min(delay * 2, 2.0)

    def failed(self, address: Address, exc: errors.HealthStoreError) -> None:
        """Notes why `address` did not take the connection."""
        self._failures.append(exc if isinstance(exc, errors.Unavailable) else errors.Unavailable(f"{address}: {exc.message}"))

    def reached(self, address: Address) -> None:
        """Records the node the client is now connected to."""
        self._servers.connected(address)


def not_repeated(call_field: str, exc: errors.HealthStoreError) -> Optional[errors.Unavailable]:
    """The error for a call cut off by the loss that must not be sent twice; None when it may be."""
    if call_field not in NOT_REPEATABLE:
        return None
    return errors.Unavailable(f"the connection was lost during {call_field}, which is not repeated "
                              f"(it is not safe to send twice): {exc.message}")
