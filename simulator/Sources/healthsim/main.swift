import Foundation
import HealthCLI
import HealthClient
import HealthModel
import HealthSimulator

// healthsim: parse flags, wire HealthClient into the simulator, run, report.

func summary(_ report: RunReport) -> String {
    var lines = [
        "healthsim: \(report.mode), \(report.devices) device(s), \(String(format: "%.1f", report.wallSeconds)) s: "
            + "\(report.samplesAcknowledged) acknowledged, \(report.samplesRejected) rejected, \(report.samplesSent) sent, "
            + "\(report.reconnects) reconnects, \(Int(report.throughputPerSecond))/s, "
            + "save p50 \(report.saveLatencyMs.p50) ms p99 \(report.saveLatencyMs.p99) ms",
    ]
    for (code, n) in report.rejectedByCode.sorted(by: { $0.key < $1.key }) {
        lines.append("  rejected \(code): \(n) (e.g. \(report.rejectedExamples[code] ?? "?"))")
    }
    // Devices refused for the same reason share one line, however large the fleet.
    let byError = Dictionary(grouping: report.authorizationErrors, by: \.value)
    for (error, devices) in byError.sorted(by: { $0.key < $1.key }) {
        let who = devices.count == 1 ? devices[0].key : "\(devices.count) devices"
        lines.append("  \(who): \(error) — approve with --approve or healthctl authz approve")
    }
    for (source, n) in report.acknowledgedBySource.sorted(by: { $0.key < $1.key }) { lines.append("  source \(source): \(n)") }
    if report.acknowledgedByDevice.count <= 20 {
        for (device, n) in report.acknowledgedByDevice.sorted(by: { $0.key < $1.key }) { lines.append("  device \(device): \(n)") }
    } else {
        lines.append("  \(report.acknowledgedByDevice.count) devices (per-device counts in --report)")
    }
    return lines.joined(separator: "\n")
}

let tool = ToolMain(name: "healthsim", help: RunOptions.help)
let options: RunOptions
let servers: [Endpoint]
do throws(UsageError) {
    options = try RunOptions(tool.parse(Array(CommandLine.arguments.dropFirst()), options: RunOptions.specs))
    do throws(HealthError) {
        servers = try Endpoint.list(options.servers)
    } catch {
        throw UsageError.value("server", error.message)
    }
} catch {
    tool.fail(error)
}

do {
    let fleet = try ProfileLoader.load(files: options.profilePaths)
    if options.printProfiles {
        print(String(decoding: try ProfileLoader.encode(fleet), as: UTF8.self))
        exit(0)
    }
    let tls = try options.tls ? ClientTLS(caFile: options.caFile, certificateFile: options.tlsCertificateFile,
                                          keyFile: options.tlsKeyFile) : nil
    let connector = ClientConnector(servers: servers, tls: tls, timeout: options.timeout.map { .seconds($0) } ?? HealthConnection.defaultTimeout,
                                    ownerTokenFile: options.ownerTokenFile)
    let stats = RunStats()
    let devices = options.mode == .load ? options.devices : fleet.devices.count
    let progress = Task { await ProgressLine(stats: stats, devices: devices).run() }
    let started = ContinuousClock.now
    if options.mode == .load {
        try await LoadRun(options: options, connector: connector, stats: stats).run()
    } else {
        try await FleetRun(fleet: fleet, options: options, connector: connector, stats: stats).run(now: options.end ?? Time.now())
    }
    let elapsed = ContinuousClock.now - started
    progress.cancel()
    await progress.value
    let report = RunReport(mode: options.mode.rawValue, seed: options.seed, devices: devices,
                           wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           stats: stats.snapshot)
    if let path = options.reportPath {
        try report.json().write(to: URL(fileURLWithPath: path))
    }
    print(summary(report))
    // A run that generated data but got none of it stored failed, whatever the reason.
    if report.samplesGenerated > 0 && report.samplesAcknowledged == 0 { exit(1) }
} catch let refused as RunRefused {
    FileHandle.standardError.write(Data("\nhealthsim: \(refused)\n".utf8))
    exit(1)
} catch let error as HealthError {
    FileHandle.standardError.write(Data("healthsim: \(error.plainDescription)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("healthsim: \(error)\n".utf8))
    exit(1)
}
