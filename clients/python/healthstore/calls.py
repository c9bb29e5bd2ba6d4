"""Every call of the v1 contract as a typed method, shared by the blocking and asyncio clients.

Each method builds the request and names the result field plus how to extract the value; the
concrete client decides whether to block or to return an awaitable (`_unary`, `_collect`,
`_stream`).
"""

from .v1 import healthstore_pb2 as pb
from .values import micros, uuid_bytes


def _day(day):
    if isinstance(day, pb.CalendarDay):
        return day
    if hasattr(day, "year"):
        return pb.CalendarDay(year=day.year, month=day.month, day=day.day)
    year, month, dom = (int(x) for x in str(day).split("-"))
    return pb.CalendarDay(year=year, month=month, day=dom)


def _merge_anchored(pages):
    samples, deleted, anchor = [], [], b""
    for page in pages:
        samples.extend(page.samples)
        deleted.extend(page.deleted)
        anchor = page.new_anchor or anchor
    return samples, deleted, anchor


class Calls:
    """Typed call methods; subclasses provide _unary, _collect and _stream."""

    # -- session --------------------------------------------------------------------------------
    def ping(self, payload=b""):
        """Round trip; returns the Pong."""
        return self._unary("ping", pb.Ping(payload=payload), "pong", lambda r: r)

    # -- authorization --------------------------------------------------------------------------
    def request_authorization(self, share=(), read=()):
        """Records a request; success never says whether access was granted."""
        msg = pb.RequestAuthorization(share_types=list(share), read_types=list(read))
        return self._unary("request_authorization", msg, "request_authorization", lambda r: None)

    def authorization_status(self, *types):
        """Share status per type, as names ("NOT_DETERMINED", "SHARING_DENIED", "SHARING_AUTHORIZED")."""
        msg = pb.GetAuthorizationStatus(types=list(types))
        return self._unary("get_authorization_status", msg, "get_authorization_status",
                           lambda r: {s.type: pb.AuthorizationStatus.Name(s.status).replace("AUTHORIZATION_STATUS_", "")
                                      for s in r.statuses})

    def request_status(self, share=(), read=()):
        """"SHOULD_REQUEST" or "UNNECESSARY"."""
        msg = pb.GetRequestStatusForAuthorization(share_types=list(share), read_types=list(read))
        return self._unary("get_request_status_for_authorization", msg, "get_request_status_for_authorization",
                           lambda r: pb.AuthorizationRequestStatus.Name(r.status).replace("AUTHORIZATION_REQUEST_STATUS_", ""))

    # -- saving and deleting --------------------------------------------------------------------
    def save(self, samples):
        """Saves atomically; returns one outcome name per object ("STORED", "ALREADY_STORED", …)."""
        msg = pb.SaveObjects(objects=list(samples))
        return self._unary("save_objects", msg, "save_objects",
                           lambda r: [pb.SaveOutcome.Name(o).replace("SAVE_OUTCOME_", "") for o in r.outcomes])

    def delete(self, uuids):
        """Deletes own objects by UUID; returns the count."""
        msg = pb.DeleteObjects(uuids=pb.UuidsPredicate(uuids=[uuid_bytes(u) for u in uuids]))
        return self._unary("delete_objects", msg, "delete_objects", lambda r: r.deleted_count)

    def delete_matching(self, type_id, predicate=None):
        """Deletes own objects of a type matching a predicate; returns the count."""
        matching = pb.TypedPredicate(type=type_id)
        if predicate is not None:
            matching.predicate.CopyFrom(predicate)
        return self._unary("delete_objects", pb.DeleteObjects(matching=matching), "delete_objects",
                           lambda r: r.deleted_count)

    # -- queries --------------------------------------------------------------------------------
    def samples(self, *types, predicate=None, sort=(), limit=0):
        """HKSampleQuery: every matching sample (pages are collected)."""
        msg = pb.QuerySamples(types=list(types), limit=limit,
                              sort=[s if isinstance(s, pb.SortDescriptor) else pb.SortDescriptor(key=s[0], descending=s[1])
                                    for s in sort])
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return self._collect("query_samples", msg, "samples",
                             lambda pages: [s for page in pages for s in page.samples])

    def _anchored_request(self, types, predicate, anchor, limit, updates):
        msg = pb.QueryAnchored(types=list(types), anchor=anchor or b"", limit=limit, updates=updates)
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return msg

    def anchored(self, *types, predicate=None, anchor=None, limit=0):
        """HKAnchoredObjectQuery: (samples, deleted objects, new anchor)."""
        msg = self._anchored_request(types, predicate, anchor, limit, False)
        return self._collect("query_anchored", msg, "anchored", _merge_anchored)

    def anchored_updates(self, *types, predicate=None, anchor=None):
        """Long-running anchored query: yields AnchoredPage messages (initial pages, then updates)."""
        return self._stream("query_anchored", self._anchored_request(types, predicate, anchor, 0, True), "anchored")

    def statistics(self, type_id, *options, predicate=None, unit=""):
        """HKStatisticsQuery; options are names like "cumulative_sum". Raises NoData when nothing matches."""
        msg = pb.QueryStatistics(type=type_id, unit=unit, options=pb.StatisticsOptions(**{o: True for o in options}))
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return self._unary("query_statistics", msg, "statistics", lambda r: r.statistics)

    def _collection_request(self, type_id, options, anchor, interval, start, end, time_zone, predicate, unit, updates):
        msg = pb.QueryStatisticsCollection(
            type=type_id, unit=unit, anchor_time=micros(anchor), interval=pb.IntervalComponents(**interval),
            time_zone=time_zone, from_time=micros(start), to_time=micros(end), updates=updates,
            options=pb.StatisticsOptions(**{o: True for o in options}))
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return msg

    def statistics_collection(self, type_id, *options, anchor, interval, start, end, time_zone="", predicate=None, unit=""):
        """HKStatisticsCollectionQuery: every bucket from `start` to `end`; interval like {"days": 1}."""
        msg = self._collection_request(type_id, options, anchor, interval, start, end, time_zone, predicate, unit, False)
        return self._unary("query_statistics_collection", msg, "statistics_collection", lambda r: list(r.buckets))

    def statistics_collection_updates(self, type_id, *options, anchor, interval, start, end, time_zone="", predicate=None, unit=""):
        """Long-running collection: yields StatisticsCollectionResult (initial, then changed buckets)."""
        msg = self._collection_request(type_id, options, anchor, interval, start, end, time_zone, predicate, unit, True)
        return self._stream("query_statistics_collection", msg, "statistics_collection")

    def correlations(self, type_id, predicate=None, sample_predicates=()):
        """HKCorrelationQuery; sample_predicates is a list of (type, predicate-or-None)."""
        msg = pb.QueryCorrelations(type=type_id)
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        for t, p in sample_predicates:
            entry = msg.sample_predicates.add(type=t)
            if p is not None:
                entry.predicate.CopyFrom(p)
        return self._unary("query_correlations", msg, "correlations", lambda r: list(r.correlations))

    def sources(self, type_id, predicate=None):
        """HKSourceQuery: the sources that saved readable samples of a type."""
        msg = pb.QuerySources(type=type_id)
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return self._unary("query_sources", msg, "sources", lambda r: list(r.sources))

    def devices(self, type_id=""):
        """Distinct devices of readable samples."""
        return self._unary("query_devices", pb.QueryDevices(type=type_id), "devices", lambda r: list(r.devices))

    def count_samples(self, *types, predicate=None):
        """How many readable samples `samples(*types, predicate=...)` would return, as SampleCount
        messages (type, source, device, count): the server counts, no sample is sent."""
        msg = pb.CountSamples(types=list(types))
        if predicate is not None:
            msg.predicate.CopyFrom(predicate)
        return self._unary("count_samples", msg, "sample_counts", lambda r: list(r.counts))

    def observe(self, *types, frequency=0):
        """HKObserverQuery: yields lists of changed types (the first, empty, confirms registration).
        Asking for the next event acknowledges the last one, like HealthKit's completion handler;
        the server holds further events until then and ends an observer that never acknowledges."""
        msg = pb.Observe(types=list(types), frequency=frequency)
        return self._stream("observe", msg, "observer_event", lambda r: list(r.changed_types))

    def activity_summaries(self, first_day, last_day, time_zone=""):
        """HKActivitySummaryQuery for an inclusive range of days ("2026-11-01" or date objects)."""
        msg = pb.QueryActivitySummaries(from_day=_day(first_day), to_day=_day(last_day), time_zone=time_zone)
        return self._unary("query_activity_summaries", msg, "activity_summaries", lambda r: list(r.summaries))

    # -- characteristics and source order -------------------------------------------------------
    def characteristics(self):
        """The owner's characteristics (unset or unreadable ones come back unset)."""
        return self._unary("read_characteristics", pb.ReadCharacteristics(), "characteristics", lambda r: r)

    def write_characteristics(self, **fields):
        """Owner only: e.g. biological_sex=pb.BIOLOGICAL_SEX_FEMALE, date_of_birth="1990-04-01"."""
        if "date_of_birth" in fields:
            fields["date_of_birth"] = _day(fields["date_of_birth"])
        msg = pb.WriteCharacteristics(characteristics=pb.Characteristics(**fields))
        return self._unary("write_characteristics", msg, "write_characteristics", lambda r: None)

    def set_source_priority(self, type_id, bundle_ids):
        """Owner only: source order for a type, highest first."""
        msg = pb.SetSourcePriority(type=type_id, bundle_ids=list(bundle_ids))
        return self._unary("set_source_priority", msg, "source_priority", lambda r: [s.bundle_id for s in r.sources])

    def get_source_priority(self, type_id):
        """The effective source order for a type, as bundle ids."""
        return self._unary("get_source_priority", pb.GetSourcePriority(type=type_id), "source_priority",
                           lambda r: [s.bundle_id for s in r.sources])

    # -- owner and operator ---------------------------------------------------------------------
    def register_app(self, bundle_id, name):
        """Owner: registers an app; returns its token (shown once)."""
        return self._unary("register_app", pb.RegisterApp(bundle_id=bundle_id, name=name), "app_credential",
                           lambda r: r.token)

    def rotate_app_token(self, bundle_id):
        """Owner: a new token for an app; the old one stops working."""
        return self._unary("rotate_app_token", pb.RotateAppToken(bundle_id=bundle_id), "app_credential",
                           lambda r: r.token)

    def list_apps(self):
        """Owner: registered apps."""
        return self._unary("list_apps", pb.ListApps(), "list_apps", lambda r: list(r.apps))

    def revoke_app(self, bundle_id):
        """Owner: revokes an app and closes its connections."""
        return self._unary("revoke_app", pb.RevokeApp(bundle_id=bundle_id), "revoke_app", lambda r: r.connections_closed)

    def authorization_requests(self, bundle_id=""):
        """Owner: pending requests."""
        msg = pb.ListAuthorizationRequests(bundle_id=bundle_id)
        return self._unary("list_authorization_requests", msg, "authorization_requests", lambda r: list(r.requests))

    def authorization_request_updates(self, bundle_id=""):
        """Owner, long-running: yields the pending requests now and again whenever new ones arrive."""
        msg = pb.ListAuthorizationRequests(bundle_id=bundle_id, updates=True)
        return self._stream("list_authorization_requests", msg, "authorization_requests", lambda r: list(r.requests))

    def decide_authorization(self, bundle_id, share=(), read=(), grant=True):
        """Owner: grants (or denies) share/read permission for types."""
        decisions = [pb.AuthorizationDecision(type=t, direction=pb.ACCESS_DIRECTION_SHARE, grant=grant) for t in share]
        decisions += [pb.AuthorizationDecision(type=t, direction=pb.ACCESS_DIRECTION_READ, grant=grant) for t in read]
        msg = pb.DecideAuthorization(bundle_id=bundle_id, decisions=decisions)
        return self._unary("decide_authorization", msg, "decide_authorization", lambda r: r.recorded)

    def list_permissions(self, bundle_id):
        """Owner: one app's permissions."""
        return self._unary("list_permissions", pb.ListPermissions(bundle_id=bundle_id), "list_permissions",
                           lambda r: list(r.permissions))

    def add_owner(self, name):
        """Operator: creates an owner; returns the owner's token."""
        return self._unary("add_owner", pb.AddOwner(name=name), "owner_credential", lambda r: r.token)

    def list_owners(self):
        """Operator: owner names."""
        return self._unary("list_owners", pb.ListOwners(), "list_owners", lambda r: list(r.names))
