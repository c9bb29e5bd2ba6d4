import HealthClient
import HealthModel

/// `apps …` and `owners …`: credentials.
enum AppCommands {
    static let all: [Command] = [
        Command(["apps", "add"], usage: "apps add BUNDLE_ID --name NAME", summary: "register an app and print its token (shown once)",
                options: [("name NAME", "the app's display name")]) { inv in
            let bundleID = try inv.arguments.positionals("BUNDLE_ID")[0]
            let credential = try await inv.connect().registerApp(bundleID: bundleID, name: try inv.arguments.required("name"))
            inv.print(credentialReport(credential))
        },
        Command(["apps", "list"], usage: "apps list", summary: "the owner's registered apps") { inv in
            _ = try inv.arguments.positionals()
            let apps = try await inv.connect().listApps()
            inv.print(Report(table: Table(columns: ["BUNDLE ID", "NAME", "CREATED", "REVOKED"], rows: apps.map {
                [$0.source.bundleID, $0.source.name, inv.time($0.createdTime), $0.revoked ? "yes" : "no"]
            })))
        },
        Command(["apps", "revoke"], usage: "apps revoke BUNDLE_ID", summary: "revoke an app's token and end its connections") { inv in
            let bundleID = try inv.arguments.positionals("BUNDLE_ID")[0]
            let closed = try await inv.connect().revokeApp(bundleID: bundleID)
            inv.output("revoked \(bundleID); closed \(closed) connection\(closed == 1 ? "" : "s")")
        },
        Command(["apps", "rotate"], usage: "apps rotate BUNDLE_ID", summary: "replace an app's token (data and permissions kept)") { inv in
            let bundleID = try inv.arguments.positionals("BUNDLE_ID")[0]
            inv.print(credentialReport(try await inv.connect().rotateAppToken(bundleID: bundleID)))
        },
    ]

    static func credentialReport(_ credential: AppCredential) -> Report {
        Report(table: Table(columns: ["BUNDLE ID", "NAME", "TOKEN"],
                            rows: [[credential.app.bundleID, credential.app.name, credential.token]]),
               json: .object(["bundle_id": .string(credential.app.bundleID), "name": .string(credential.app.name),
                              "token": .string(credential.token)]),
               footer: ["", "The token is shown only now: store it where the app can read it."])
    }
}

/// `owners …` (operator credential, e.g. --token-file data/operator.token).
enum OwnerCommands {
    static let all: [Command] = [
        Command(["owners", "add"], usage: "owners add NAME", summary: "create an owner and print its token (operator only)") { inv in
            let name = try inv.arguments.positionals("NAME")[0]
            let credential = try await inv.connect().addOwner(name: name)
            inv.print(Report(table: Table(columns: ["OWNER", "TOKEN"], rows: [[credential.name, credential.token]]),
                             json: .object(["name": .string(credential.name), "token": .string(credential.token)]),
                             footer: ["", "The token is shown only now."]))
        },
        Command(["owners", "list"], usage: "owners list", summary: "every owner on the server (operator only)") { inv in
            _ = try inv.arguments.positionals()
            let owners = try await inv.connect().listOwners()
            inv.print(Report(table: Table(columns: ["OWNER"], rows: owners.map { [$0] })))
        },
    ]
}
