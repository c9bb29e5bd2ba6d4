import HealthCLI
import Foundation
import HealthClient
import HealthModel

/// `authz …`: the owner's side of authorization.
enum AuthzCommands {
    static let decisionOptions: [(String, String)] = [("type T", "a type to decide (repeatable, or a,b,c)")]
    static let decisionFlags: [(String, String)] = [("all", "every pending request of the app"),
                                                    ("share", "only share (write) permission"),
                                                    ("read", "only read permission")]

    static let all: [Command] = [
        Command(["authz", "pending"], usage: "authz pending [BUNDLE_ID] [--watch]", summary: "pending authorization requests",
                flags: [("watch", "keep running and print requests as they arrive")]) { inv in
            let bundleID = inv.arguments.positionals.first
            let connection = try await inv.connect()
            if inv.arguments.has("watch") {
                for try await requests in connection.authorizationRequestUpdates(bundleID: bundleID) {
                    inv.print(requestsReport(requests, zone: inv.zone))
                }
            } else {
                inv.print(requestsReport(try await connection.authorizationRequests(bundleID: bundleID), zone: inv.zone))
            }
        },
        Command(["authz", "approve"], usage: "authz approve BUNDLE_ID [--type T ...|--all] [--share|--read]",
                summary: "grant permission", options: decisionOptions, flags: decisionFlags) { inv in
            try await decide(inv, grant: true)
        },
        Command(["authz", "deny"], usage: "authz deny BUNDLE_ID [--type T ...|--all] [--share|--read]",
                summary: "deny permission", options: decisionOptions, flags: decisionFlags) { inv in
            try await decide(inv, grant: false)
        },
        Command(["authz", "show"], usage: "authz show BUNDLE_ID", summary: "an app's recorded permissions") { inv in
            let bundleID = try inv.arguments.positionals("BUNDLE_ID")[0]
            let permissions = try await inv.connect().permissions(bundleID: bundleID)
            inv.print(Report(table: Table(columns: ["TYPE", "DIRECTION", "STATE", "UPDATED"], rows: permissions.map {
                [shortName($0.type), directionName($0.direction), stateName($0.state), inv.time($0.updatedTime)]
            })))
        },
    ]

    /// The decisions a command line asks for: the named types, or with --all the pending requests.
    static func decisions(_ arguments: ParsedArguments, pending: [AuthorizationRequest], grant: Bool) throws -> [AuthorizationDecision] {
        let directions: [AccessDirection] = switch (arguments.has("share"), arguments.has("read")) {
        case (true, false): [.share]
        case (false, true): [.read]
        default: [.share, .read]
        }
        let typeNames = arguments.list("type")
        if arguments.has("all") {
            guard typeNames.isEmpty else { throw UsageError("use either --type or --all", option: "all") }
            return pending.filter { directions.contains($0.direction) }
                .map { AuthorizationDecision(type: $0.type, direction: $0.direction, grant: grant) }
        }
        guard !typeNames.isEmpty else { throw UsageError("name the types with --type T, or pass --all", option: "type") }
        var decisions: [AuthorizationDecision] = []
        for name in typeNames {
            let type = try TypeCatalog.resolve(name)
            decisions += directions.map { AuthorizationDecision(type: type.identifier, direction: $0, grant: grant) }
        }
        return decisions
    }

    private static func decide(_ inv: Invocation, grant: Bool) async throws {
        let bundleID = try inv.arguments.positionals("BUNDLE_ID")[0]
        let connection = try await inv.connect()
        let pending = inv.arguments.has("all") ? try await connection.authorizationRequests(bundleID: bundleID) : []
        let decisions = try decisions(inv.arguments, pending: pending, grant: grant)
        guard !decisions.isEmpty else { return inv.output("nothing pending for \(bundleID)") }
        let recorded = try await connection.decideAuthorization(bundleID: bundleID, decisions: decisions)
        inv.output("\(grant ? "granted" : "denied") \(recorded) permission\(recorded == 1 ? "" : "s") for \(bundleID)")
    }

    static func requestsReport(_ requests: [AuthorizationRequest], zone: TimeZone? = nil) -> Report {
        Report(table: Table(columns: ["BUNDLE ID", "APP", "TYPE", "DIRECTION", "REQUESTED"], rows: requests.map {
            [$0.app.bundleID, $0.app.name, shortName($0.type), directionName($0.direction), Time.iso8601($0.requestedTime, in: zone)]
        }))
    }

    static func directionName(_ direction: AccessDirection) -> String { direction == .share ? "share" : "read" }

    static func stateName(_ state: PermissionState) -> String {
        switch state {
        case .pending: "pending"
        case .granted: "granted"
        case .denied: "denied"
        }
    }
}
