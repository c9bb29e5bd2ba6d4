import AppleHealthImport
import Foundation
import HealthModel
import HealthWire
import Synchronization

/// The dashboard's Apple Health imports: an uploaded export read and saved off the event loop, as the
/// owner's keep_sources SaveObjects through the dispatcher; at most one at a time per owner.
final class ExportImports: Sendable {
    /// One import's state as `GET /api/imports/<id>` shows it.
    struct Status: Sendable {
        var state = "running"
        var progress = ImportProgress()
        var summary: ImportSummary?
        var error: HealthError?
    }

    private struct Imports {
        var byID: [String: (owner: String, status: Status)] = [:]
        var running: Set<String> = []
    }

    private let dispatcher: Dispatcher
    private let loop: EventLoop
    private let imports = Mutex(Imports())

    init(dispatcher: Dispatcher, loop: EventLoop) {
        self.dispatcher = dispatcher
        self.loop = loop
    }

    /// Starts importing `file` as `session`'s owner in the background; its id, or nil while one runs.
    func start(_ file: UploadedFile, session: Session) -> String? {
        let owner = session.principal.ownerName
        let id = UUID().uuidString.lowercased()
        let started = imports.withLock { imports in
            guard imports.running.insert(owner).inserted else { return false }
            imports.byID[id] = (owner, Status())
            return true
        }
        guard started else { return nil }
        let destination = OwnerStore(dispatcher: dispatcher, session: session, loop: loop)
        // Off the event loop: the loop's thread only hands the saves to the dispatcher.
        Task.detached { await self.run(id, file: file, destination: destination) }
        return id
    }

    private func run(_ id: String, file: UploadedFile, destination: OwnerStore) async {
        var final = Status(state: "done")
        do {
            let importer = ExportImporter(export: try AppleHealthExport(archive: try ExportArchive(path: file.path)), destination: destination)
            do {
                try await importer.run { progress in update(id) { $0.progress = progress } }
            } catch {
                final.error = Self.healthError(error)
            }
            final.summary = importer.summary
            final.progress = status(id, owner: nil)?.progress ?? final.progress
            final.progress.records = importer.records
        } catch {
            final.error = Self.healthError(error)
        }
        if final.error != nil { final.state = "failed" }
        imports.withLock { imports in
            guard let owner = imports.byID[id]?.owner else { return }
            imports.byID[id]?.status = final
            imports.running.remove(owner)
        }
        withExtendedLifetime(file) {}
    }

    private func update(_ id: String, _ change: (inout Status) -> Void) {
        imports.withLock { imports in
            guard var entry = imports.byID[id] else { return }
            change(&entry.status)
            imports.byID[id] = entry
        }
    }

    /// An import's state, if `owner` (nil: anyone) started it.
    func status(_ id: String, owner: String?) -> Status? {
        imports.withLock { imports in
            guard let entry = imports.byID[id], owner == nil || entry.owner == owner else { return nil }
            return entry.status
        }
    }

    private static func healthError(_ error: any Error) -> HealthError {
        if let error = error as? ImportError { return HealthError(.invalidArgument, error.description, field: "file") }
        return error as? HealthError ?? HealthError(.internalError, "\(error)")
    }

    /// The JSON form of a status (docs/http.md).
    static func json(_ id: String, _ status: Status) -> JSON {
        func tallies(_ rows: [String: ImportTally]) -> JSON {
            .array(rows.keys.sorted().filter { !$0.isEmpty }.map { key in
                let tally = rows[key]!
                return .object(["name": .string(key), "stored": .int(Int64(tally.stored)), "already_present": .int(Int64(tally.alreadyPresent)),
                                "skipped": .object(tally.skipped.mapValues { .int(Int64($0)) })])
            })
        }
        return .object([
            "id": .string(id), "state": .string(status.state),
            "bytes_read": .int(status.progress.bytesRead), "total_bytes": .int(status.progress.totalBytes),
            "records": .int(Int64(status.progress.records)), "current_type": .string(status.progress.currentType),
            "summary": status.summary.map { .object(["types": tallies($0.byType), "sources": tallies($0.bySource),
                                                     "invalid_count": .int(Int64($0.invalidCount))]) } ?? .null,
            "error": status.error.map { HTTPResponse.errorJSON($0) } ?? .null,
        ])
    }
}

/// The owner's store as the importer's destination: the owner's calls through the dispatcher.
private struct OwnerStore: ImportDestination {
    let dispatcher: Dispatcher
    let session: Session
    let loop: EventLoop

    func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
        guard case .saveObjects(let outcomes)? = try await dispatcher.answers(.saveObjects(samples, keepSources: true), session: session, loop: loop).last else {
            throw HealthError(.internalError, "SaveObjects gave no outcomes")
        }
        return outcomes
    }

    func characteristics() async throws -> Characteristics {
        guard case .characteristics(let values)? = try await dispatcher.answers(.readCharacteristics, session: session, loop: loop).last else {
            throw HealthError(.internalError, "ReadCharacteristics gave no answer")
        }
        return values
    }

    func writeCharacteristics(_ update: Characteristics) async throws {
        _ = try await dispatcher.answers(.writeCharacteristics(update), session: session, loop: loop)
    }

    func isStored(_ uuid: UUID, type: String) async throws -> Bool {
        let answers = try await dispatcher.answers(.querySamples(SampleQuery(types: [type], predicate: .uuids([uuid]))),
                                                   session: session, loop: loop)
        return answers.contains { if case .samples(let samples) = $0 { !samples.isEmpty } else { false } }
    }

    func series(_ step: SeriesStep) async throws -> Sample? {
        switch step {
        case .insert(let insert):
            _ = try await dispatcher.answers(.insertSeriesData(insert), session: session, loop: loop)
            return nil
        case .finish(let finish):
            guard case .finishSeries(let samples)? = try await dispatcher.answers(.finishSeries(finish), session: session, loop: loop).last else {
                throw HealthError(.internalError, "FinishSeries gave no samples")
            }
            return samples.first
        case .discard(let id):
            _ = try await dispatcher.answers(.discardSeries(builderID: id), session: session, loop: loop)
            return nil
        }
    }
}
