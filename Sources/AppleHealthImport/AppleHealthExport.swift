import Foundation
import HealthModel

/// Where in the export an object to save came from.
public struct ExportOrigin: Sendable, Hashable {
    public let element: String
    public let line: Int
}

/// One thing to save from an export.
public enum ExportItem: Sendable {
    case sample(Sample, ExportOrigin)
    /// The owner's characteristics from `<Me>`.
    case characteristics(Characteristics, ExportOrigin)
    /// A route or heartbeat series, handed out after its parent sample.
    case series(ExportSeries, ExportOrigin)
}

/// Reads an Apple Health export element by element and hands out what HealthStore can store; what
/// it cannot is counted in `summary` with the reason, never dropped silently.
public final class AppleHealthExport {
    /// The newest "HealthKit Export Version" this importer was built against.
    public static let knownVersion = 14

    private let archive: ExportArchive
    private var source: ByteSource
    private var stream: XMLElementStream
    /// For going on past bad XML: the last line of the last element handed out or bad line passed,
    /// after which a read again starts, and the bad lines ahead, nearest last; the current read is
    /// cut short before the nearest.
    private var readUpTo = 0
    private var stops: [Int] = []
    /// The document's lines up to and including the root's start tag, as handed to libxml2, put
    /// before every read again so it parses as the first read did (the entities its DTD declares).
    private let prologue: [UInt8]
    private let skipInvalid: Bool
    private var ready: [ExportItem] = []
    /// UUIDs of the records correlations hold, from a first pass over the correlations alone: exports
    /// repeat a correlation's records at top level, long before the correlation (records come first,
    /// by type), and they are stored once, inside it. Knowing the members up front keeps 16 bytes per
    /// member instead of every blood-pressure and food record until the end of the file. Nil when
    /// that pass could not read the whole document (XML that is not well-formed).
    private var members: Set<UUID>?
    /// Without `members`: top-level records of types that correlations hold, kept back until the end.
    private var heldBack: [UUID: (Sample, ExportOrigin)] = [:]
    private var heldBackOrder: [UUID] = []
    /// Without `members`: UUIDs of records already seen inside a correlation.
    private var nested: Set<UUID> = []
    private var finished = false

    public private(set) var summary = ImportSummary()
    /// The "HealthKit Export Version" the document declares (none before iOS 10-era DTDs).
    public let exportVersion: Int?
    /// The type (or element) being read, for progress.
    public private(set) var currentType = ""
    public var bytesRead: Int64 { source.bytesRead }
    public var totalBytes: Int64 { source.totalBytes }
    public var documentName: String { archive.documentName }

    public init(archive: ExportArchive, force: Bool = false, skipInvalid: Bool = false) throws(ImportError) {
        self.archive = archive
        self.skipInvalid = skipInvalid
        source = try archive.openDocument()
        let prefix = source.peek(65_536)
        exportVersion = Self.declaredVersion(prefix)
        let parsed = InertDTD.withoutDoctype(prefix)
        if let parsed { source.replacePeeked(with: parsed) }
        prologue = Self.prologue(parsed ?? prefix)
        if let version = exportVersion, version > Self.knownVersion, !force {
            throw .newerVersion(found: version, known: Self.knownVersion)
        }
        stream = try XMLElementStream(source: source, fileName: archive.documentName, yieldDepth: 1)
        members = Self.correlationMembers(archive)
    }

    /// The first pass: libxml2 reads the correlations alone (CorrelationLines passes over the rest).
    private static func correlationMembers(_ archive: ExportArchive) -> Set<UUID>? {
        do {
            let stream = try XMLElementStream(source: CorrelationLines.source(of: try archive.openDocument()),
                                              fileName: archive.documentName, yieldDepth: 1, only: ["Correlation"])
            var members = Set<UUID>()
            while let element = try stream.next() {
                // A correlation that is refused holds nothing: its records are stored on their own.
                guard let (correlation, _) = try? RecordMapping.correlation(element) else { continue }
                for child in correlation.correlationObjects ?? [] { members.insert(child.uuid) }
            }
            return members
        } catch {
            return nil
        }
    }

    /// The lines of `prefix` up to the one the root element starts on; a bare root start tag when it
    /// does not start a line of `prefix` (a read again then knows no entity the DTD may declare, and
    /// an element using one is counted as invalid with libxml2's reason).
    static func prologue(_ prefix: [UInt8]) -> [UInt8] {
        var lineStart = 0
        while lineStart < prefix.count {
            let lineEnd = prefix[lineStart...].firstIndex(of: 10) ?? prefix.count
            let line = prefix[lineStart..<lineEnd].drop { $0 == 32 || $0 == 9 || $0 == 13 }
            if line.starts(with: "<HealthData".utf8), lineEnd < prefix.count { return Array(prefix[...lineEnd]) }
            lineStart = lineEnd + 1
        }
        return Array("<HealthData>\n".utf8)
    }

    /// "<!-- HealthKit Export Version: 11 -->" inside the DTD.
    static func declaredVersion(_ prefix: [UInt8]) -> Int? {
        let text = String(decoding: prefix, as: UTF8.self)
        guard let match = text.firstMatch(of: /HealthKit Export Version:\s*(\d+)/) else { return nil }
        return Int(match.1)
    }

    /// The next object to save; nil when the export is read.
    public func next() throws(ImportError) -> ExportItem? {
        while ready.isEmpty {
            guard !finished else { return nil }
            let element: ExportElement?
            do {
                element = try stream.next()
            } catch {
                guard skipInvalid, case .malformed(_, let line, _, _) = error else { throw error }
                if let stop = stops.last, line >= stop {
                    // The read cut short before the bad line ended inside the bad element.
                    try passStop()
                } else {
                    summary.noteInvalid(error.description)
                    summary.skip(type: "XML", source: nil, reason: "malformed XML skipped to the next element (--skip-invalid)")
                    try readAgain(upTo: line)
                }
                continue
            }
            guard let element else {
                if stops.isEmpty { finish() } else { try passStop() }
                continue
            }
            readUpTo = max(readUpTo, element.lastLine)
            try read(element)
        }
        return ready.removeFirst()
    }

    /// Elements a resumed read looks for at the start of a line.
    private static let topLevelStarts = ["Record", "Correlation", "Workout", "ActivitySummary", "ClinicalRecord", "Audiogram",
                                         "VisionPrescription", "Me", "ExportDate"].map { Array("<\($0) ".utf8) } + [Array("</HealthData".utf8)]

    /// Going on past XML that is not well-formed (--skip-invalid), step 1: libxml2 had parsed ahead
    /// when it met the bad line, so the elements after the last one handed out are read again, from
    /// a fresh copy of the document cut short before the bad line. A read again that meets bad XML
    /// before that line goes the same way, nested.
    private func readAgain(upTo bad: Int) throws(ImportError) {
        stops.append(max(bad, readUpTo))
        try readToNearestStop()
    }

    /// Step 2: the read goes on from the first element after the nearest bad line.
    private func passStop() throws(ImportError) {
        readUpTo = max(readUpTo, stops.removeLast())
        try readToNearestStop()
    }

    /// Reads again from the first element after `readUpTo`, up to the nearest bad line; past the
    /// bad lines before which no element starts.
    private func readToNearestStop() throws(ImportError) {
        while try !reopen(after: readUpTo, before: stops.last) {
            guard let stop = stops.popLast() else { return finish() }
            readUpTo = max(readUpTo, stop)
        }
    }

    /// Reads the document again, after its prologue, from the first line after `after` that starts
    /// an element, up to line `before` when given; false when no element starts in that range.
    private func reopen(after: Int, before: Int?) throws(ImportError) -> Bool {
        let fresh = try archive.openDocument()
        source = fresh
        guard let start = fresh.skipLines(after: after, toLineStartingWith: Self.topLevelStarts), start < before ?? Int.max else {
            return false
        }
        fresh.prepend(prologue)
        let prologueLines = prologue.count { $0 == 10 }
        if let before { fresh.end(beforeLine: before, nextByteOnLine: start - prologueLines, suffix: Array("</HealthData>\n".utf8)) }
        stream = try XMLElementStream(source: fresh, fileName: archive.documentName, yieldDepth: 1, lineOffset: start - 1 - prologueLines)
        return true
    }

    private func finish() {
        finished = true
        for uuid in heldBackOrder {
            if let (sample, origin) = heldBack[uuid] { ready.append(.sample(sample, origin)) }
        }
        heldBack = [:]
        if stream.rootName != nil, stream.rootName != "HealthData" {
            summary.skip(type: stream.rootName ?? "", source: nil, reason: "the document is not an Apple Health export (root <\(stream.rootName ?? "")>)")
        }
    }

    private func read(_ element: ExportElement) throws(ImportError) {
        let origin = ExportOrigin(element: element.name, line: element.line)
        let type = element[.type] ?? element[.workoutActivityType].map { _ in TypeCatalog.workoutType.identifier } ?? element.name
        let sourceName = element[.sourceName] ?? element[.source]
        currentType = type
        do {
            switch element.name {
            case "ExportDate":
                break
            case "Me":
                let (characteristics, unsupported) = try CharacteristicsMapping.map(element)
                for field in unsupported {
                    summary.skip(type: "Me." + field, source: nil, reason: "characteristic HealthStore has no field for")
                }
                ready.append(.characteristics(characteristics, origin))
            case "Record":
                let (sample, header) = try RecordMapping.record(element)
                noteDropped(header, type: type)
                let beats = try SeriesMapping.beats(element, record: sample, header: header)
                take(sample, origin)
                if let beats { ready.append(.series(beats, origin)) }
            case "Correlation":
                let (sample, header) = try RecordMapping.correlation(element)
                noteDropped(header, type: type)
                for child in sample.correlationObjects ?? [] where members == nil {
                    nested.insert(child.uuid)
                    if heldBack.removeValue(forKey: child.uuid) != nil { countDuplicate(child) }
                }
                ready.append(.sample(sample, origin))
            case "Workout":
                let (sample, header) = try WorkoutMapping.workout(element)
                noteDropped(header, type: type)
                ready.append(.sample(sample, origin))
                for (route, result) in SeriesMapping.routes(element, sample: sample, archive: archive) {
                    // A route that cannot be read costs only the route, not its workout.
                    switch result {
                    case .success(let (series, dropped)):
                        for reason in dropped {
                            summary.skip(type: "MetadataEntry", source: series.sourceName, reason: "not stored: " + reason)
                        }
                        ready.append(.series(series, ExportOrigin(element: route.name, line: route.line)))
                    case .failure(let error):
                        summary.skip(type: TypeCatalog.workoutRouteType.identifier, source: route[.sourceName] ?? sourceName,
                                     reason: "unreadable: " + error.reason)
                    }
                }
            case "ActivitySummary":
                summary.skip(type: "ActivitySummary", source: nil,
                             reason: "not stored: HealthStore computes activity summaries from samples and cannot save them")
            default:
                summary.skip(type: element.name, source: sourceName, reason: "not representable in HealthStore")
            }
        } catch {
            switch error {
            case .refused(let reason):
                summary.skip(type: type, source: sourceName, reason: reason)
            case .malformed(let reason):
                guard skipInvalid else {
                    throw .invalidElement(file: archive.documentName, line: element.line, element: element.name, reason: reason)
                }
                summary.noteInvalid("\(archive.documentName):\(element.line): <\(element.name)>: \(reason)")
                summary.skip(type: type, source: sourceName, reason: "invalid element skipped (--skip-invalid)")
            }
        }
    }

    /// A top-level record: dropped when a correlation holds it; without `members`, held back when
    /// one may.
    /// Consumes `sample`: handed on without a copy (a copy retains and releases each of its strings).
    private func take(_ sample: consuming Sample, _ origin: ExportOrigin) {
        let uuid = sample.uuid
        if members?.contains(uuid) ?? nested.contains(uuid) {
            countDuplicate(sample)
        } else if members == nil, TypeCatalog.correlationMemberTypes.contains(sample.type) {
            if heldBack.updateValue((sample, origin), forKey: uuid) == nil { heldBackOrder.append(uuid) }
        } else {
            ready.append(.sample(sample, origin))
        }
    }

    private func countDuplicate(_ sample: Sample) {
        summary.skip(type: sample.type, source: sample.sourceRevision?.source.name,
                     reason: "stored once, inside its correlation (repeated at top level)")
    }

    private func noteDropped(_ header: SampleHeader, type: String) {
        for reason in header.droppedMetadata {
            summary.skip(type: "MetadataEntry", source: header.sourceName, reason: "not stored: " + reason)
        }
    }
}
