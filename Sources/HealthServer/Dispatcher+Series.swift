import Foundation
import HealthModel
import HealthStorage
import HealthWire

// Series builders (InsertSeriesData, FinishSeries, DiscardSeries) and QuerySeriesData.
extension Dispatcher {
    /// Points a QuerySeriesData page holds when the caller names no batch size, and the most it may
    /// name: about 100 bytes a location on the wire, so a full page stays far below the frame limit
    /// (a page that still does not fit is halved) and a reader holds one page at a time.
    static let defaultSeriesBatch = 1_024, maxSeriesBatch = 8_192
    /// The sample UUID of the one empty page answering a query that matched no sample.
    static let noSample = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    func insertSeriesData(_ insert: SeriesInsert, _ access: Access) async throws -> ServerResult {
        if let type = try await builderType(insert.builderID, given: insert.type, access) { try requireShare([type], access) }
        let count = try await store.insertSeriesData(owner: access.owner, insert, revision: access.session.revision,
                                                     defaultDevice: access.session.defaultDevice, byOwner: access.session.role == .owner)
        return .insertSeriesData(count: Int64(count))
    }

    /// An app finishes only while it may still share the type (HealthKit checks authorization when it saves).
    /// A series the owner's import built as another source is audited like a keep_sources save.
    func finishSeries(_ finish: SeriesFinish, _ access: Access) async throws -> ServerResult {
        if let type = try await builderType(finish.builderID, given: nil, access) { try requireShare([type], access) }
        let session = access.session
        let samples = try await store.finishSeries(owner: access.owner, finish,
                                                   by: Deleter(owner: access.owner, bundleID: session.bundleID, isOwner: session.role == .owner))
        metrics.samplesStored.add(samples.count)
        for sample in samples where session.role == .owner {
            guard let source = sample.sourceRevision?.source.bundleID, source != session.bundleID else { continue }
            logger.info("audit: owner '\(session.principal.ownerName)' built \(sample.type) \(sample.uuid) keeping its source "
                        + "(\(sample.pointCount) points stored): \(source)")
        }
        return .finishSeries(samples)
    }

    func discardSeries(builderID: UUID, _ access: Access) async throws -> ServerResult {
        try await store.discardSeries(owner: access.owner, builder: builderID, bundleID: access.session.bundleID,
                                      byOwner: access.session.role == .owner)
        return .discardSeries
    }

    /// Streams the points of readable series samples page by page, each read only when the
    /// connection has room for it: one sample by UUID, or every sample of a quantity type matching a
    /// predicate in start order. A sample the caller may not read answers exactly like one that does
    /// not exist: one empty last page, so a read denial stays invisible.
    func querySeriesData(_ query: SeriesDataQuery, _ access: Access, reply: CallReplier) async throws -> ServerResult? {
        guard (0...Self.maxSeriesBatch).contains(query.batchSize) else {
            throw HealthError.invalid("batch_size \(query.batchSize) must be between 0 (the default, \(Self.defaultSeriesBatch)) "
                + "and \(Self.maxSeriesBatch)", field: "batch_size")
        }
        let batch = query.batchSize == 0 ? Self.defaultSeriesBatch : query.batchSize
        switch query.samples {
        case .uuid(let uuid):
            let found = try await store.querySamples(owner: access.owner, types: SeriesDataQuery.pointTypes, predicate: .uuids([uuid]),
                                                     sort: [], limit: 1, scope: access.scope)
            guard let sample = found.first else {
                return .seriesData(SeriesDataPage(sampleUUID: uuid, points: .locations([]), sampleDone: true))
            }
            try await streamPoints(of: sample, batch: batch, last: true, access, reply: reply)
        case .matching(let type, let predicate):
            guard try sampleType(type).kind == .quantity else {
                throw HealthError.invalid("QuerySeriesData by type reads quantity series; \(type) is not a quantity type "
                    + "(name a route, heartbeat series or electrocardiogram by its uuid)", field: "type")
            }
            let samples = try await store.querySamples(owner: access.owner, types: [type], predicate: predicate,
                                                       sort: [SampleSortDescriptor(.startDate)], limit: 0,
                                                       scope: access.scope)
            guard !samples.isEmpty else {
                return .seriesData(SeriesDataPage(sampleUUID: Self.noSample, points: .quantities([]), sampleDone: true))
            }
            for (index, sample) in samples.enumerated() {
                try await streamPoints(of: sample, batch: batch, last: index == samples.count - 1, access, reply: reply)
            }
        }
        return nil
    }

    /// Sends every point of `sample`, halving the page when one does not fit a frame; `last` says the
    /// sample's last page ends the call.
    private func streamPoints(of sample: Sample, batch: Int, last: Bool, _ access: Access, reply: CallReplier) async throws {
        let total = sample.pointCount
        var batch = batch, start = 0
        while true {
            try await reply.room()
            let points = try await store.seriesData(owner: access.owner, sample: sample, from: start, limit: batch)
            let done = points.count < batch || start + points.count >= total
            let page = SeriesDataPage(sampleUUID: sample.uuid, points: points, sampleDone: done)
            if await reply.trySend(.seriesData(page), more: !(done && last), pageFollows: !(done && last)) {
                if done { return }
                start += points.count
            } else if points.count > 1 {
                batch = points.count / 2
            } else {
                throw HealthError(.dataSizeExceeded, "one series point is larger than the \(config.maxFrameBytes)-byte frame limit")
            }
        }
    }

    /// The type a call on a builder acts on: the app's open builder's, else the one named (a first
    /// InsertSeriesData), checked to be a known sample type; nil when neither (the store then refuses the call).
    private func builderType(_ builderID: UUID, given: String?, _ access: Access) async throws -> String? {
        if let open = try await store.seriesBuilderType(owner: access.owner, builder: builderID, bundleID: access.session.bundleID) {
            return open
        }
        guard let given, !given.isEmpty else { return nil }
        return try sampleType(given).identifier
    }
}
