import AppleHealthImport
import Foundation
import HealthCLI
import HealthClient
import HealthModel

/// `healthctl import-apple-health PATH`: an Apple Health export saved into the owner's store as if
/// its apps and devices had written it (SaveObjects with keep_sources), in atomic batches with a
/// few in flight (ExportImporter, as the dashboard's uploads). UUIDs are derived from each object's
/// content, so running it again resumes an interrupted import and stores nothing twice.
enum AppleHealthImportCommand {
    static let command = Command(
        ["import-apple-health"], usage: "import-apple-health PATH [--batch N] [--skip-invalid] [--force] [--progress]",
        summary: "import an Apple Health export (export.zip, its unzipped folder, or export.xml) with its sources and "
            + "devices (owner token); running it again stores only what is new",
        options: [("batch N", "samples per atomic save (default \(ExportImporter.defaultBatchSize))")],
        flags: [("skip-invalid", "count malformed elements and go on instead of stopping at the first"),
                ("force", "try an export whose version is newer than the importer knows"),
                ("progress", "show progress on stderr even when it is not a terminal")]) { inv in
        let path = try inv.arguments.positionals("PATH")[0]
        try await run(inv, path: path)
    }

    private static func run(_ inv: Invocation, path: String) async throws {
        var batchSize = ExportImporter.defaultBatchSize
        if let text = inv.arguments.value("batch") {
            guard let n = Int(text), n > 0 else { throw UsageError("--batch: '\(text)' is not a positive whole number", option: "batch") }
            batchSize = n
        }
        let export: AppleHealthExport
        do {
            export = try AppleHealthExport(archive: try ExportArchive(path: path), force: inv.arguments.has("force"),
                                           skipInvalid: inv.arguments.has("skip-invalid"))
        } catch {
            throw error.healthError
        }
        let connection = try await inv.connect()
        let status = LiveStatus(forced: inv.arguments.has("progress"))
        // Only for noting the first refusals of each reason as they happen; the summary counts them all.
        var refusals = ImportCounts()
        let importer = ExportImporter(export: export, destination: ConnectionDestination(connection: connection, keepSources: true),
                                      batchSize: batchSize) { item, outcome in
            if case .refused(let error) = outcome { refusals.refuse(lines: [item.line], error, status: status) }
        }
        var failure: HealthError?
        do {
            try await importer.run { progress in
                status.update(Self.progress(progress, rate: status.rate(progress.records)))
            }
        } catch let error as ImportError {
            // What was read before the bad place is still saved: a re-run with --skip-invalid goes on from there.
            failure = error.healthError
        }
        status.finish("import-apple-health: \(importer.records) samples read from \(export.documentName) in "
            + String(format: "%.1fs", status.elapsed) + ", \(formatRate(status.rate(importer.records))); peak RSS "
            + String(format: "%.1f MB", Double(peakRSSBytes()) / 1_048_576))
        let summary = importer.summary
        if inv.format == .json {
            inv.output(json(summary, export: export, seconds: status.elapsed).text(pretty: false))
        } else {
            inv.print(report(summary, by: "TYPE", summary.byType))
            inv.output("")
            inv.print(report(summary, by: "SOURCE", summary.bySource))
            for place in summary.invalid { inv.output("invalid: " + place) }
        }
        if let failure { throw failure }
        if importer.refused > 0 {
            throw HealthError(.invalidArgument, "\(importer.refused) of \(importer.records) samples were refused (causes above)")
        }
    }

    /// "12.3 of 130.0 MB (9%), 20500 records read, 4567/s, ETA 0:25, HKQuantityTypeIdentifierHeartRate".
    private static func progress(_ progress: ImportProgress, rate: Double) -> String {
        let (done, total, read) = (Double(progress.bytesRead), Double(progress.totalBytes), progress.records)
        var line = String(format: "import-apple-health: %.1f of %.1f MB", done / 1_048_576, total / 1_048_576)
        if total > 0 { line += String(format: " (%.0f%%)", 100 * done / total) }
        line += ", \(read) records read, \(formatRate(rate))"
        if done > 0, total > done, rate > 0 {
            let seconds = Int((total - done) / done * Double(read) / rate)
            line += String(format: ", ETA %d:%02d", seconds / 60, seconds % 60)
        }
        return line + ", " + progress.currentType
    }

    private static func report(_ summary: ImportSummary, by column: String, _ rows: [String: ImportTally]) -> Report {
        let table = Table(columns: [column, "STORED", "ALREADY PRESENT", "SKIPPED", "REASONS"], rows: rows.keys.sorted().compactMap { key in
            guard let tally = rows[key], !key.isEmpty else { return nil }
            let reasons = tally.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
            return [key, String(tally.stored), String(tally.alreadyPresent), String(tally.skippedTotal), reasons]
        })
        return Report(table: table)
    }

    private static func json(_ summary: ImportSummary, export: AppleHealthExport, seconds: Double) -> JSON {
        func tallies(_ rows: [String: ImportTally]) -> JSON {
            .object(Dictionary(uniqueKeysWithValues: rows.filter { !$0.key.isEmpty }.map { key, tally in
                (key, .object(["stored": .int(Int64(tally.stored)), "already_present": .int(Int64(tally.alreadyPresent)),
                               "skipped": .object(tally.skipped.mapValues { .int(Int64($0)) })]))
            }))
        }
        return .object(["types": tallies(summary.byType), "sources": tallies(summary.bySource),
                        "invalid": .array(summary.invalid.map(JSON.string)), "invalid_count": .int(Int64(summary.invalidCount)),
                        "export_version": export.exportVersion.map { .int(Int64($0)) } ?? .null,
                        "seconds": .double(seconds), "peak_rss_bytes": .int(peakRSSBytes())])
    }

    /// The most memory this process has held (getrusage's ru_maxrss is in KiB on Linux).
    private static func peakRSSBytes() -> Int64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int64(usage.ru_maxrss) * 1024
    }
}
