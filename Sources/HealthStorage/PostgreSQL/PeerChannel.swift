import Foundation
import HealthModel

/// The NOTIFY channel by which nodes sharing one PostgreSQL store tell each other what they
/// committed, and the payloads it carries (JSON, each under PostgreSQL's 8000-byte limit).
struct PeerChannel: Sendable {
    /// The channel's name, one per schema: stores in other schemas of the database never hear it.
    let name: String
    /// This node's id, so it can ignore its own announcements (delivered to every listener).
    let node: String

    /// PostgreSQL refuses payloads of 8000 bytes or more.
    static let payloadLimit = 7999

    init(schema: String) {
        let readable = "healthstore_changes_" + schema
        // Channel names are identifiers: at most 63 bytes.
        name = readable.utf8.count <= 63 ? readable : "healthstore_changes_" + Self.fnv1a(schema)
        node = UUID().uuidString
    }

    /// The payloads announcing `events`; an event too large for one payload goes out coarse (a data
    /// change of unknown types, a permission change of every app of the owner).
    func payloads(for events: [StoreEvent]) -> [String] {
        events.compactMap { event in
            guard let message = Message(event, node: node) else { return nil }
            if let text = message.json, text.utf8.count <= Self.payloadLimit { return text }
            return message.coarse.json
        }
    }

    /// The event a payload announces; nil for this node's own and for anything unreadable.
    func event(from payload: String) -> StoreEvent? {
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(payload.utf8)), message.node != node else {
            return nil
        }
        return message.event
    }

    private static func fnv1a(_ text: String) -> String {
        let hash = text.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// One event on the wire.
    private struct Message: Codable {
        enum Kind: String, Codable {
            case data, permissions, sourcePriority, credentials
        }

        var node: String
        var kind: Kind
        var owner: Int64
        /// Type → [start, end] of a data change; absent when not known (any type, anywhere).
        var spans: [String: [Int64]]?
        var sources: [String]?
        /// The apps whose permissions or credentials changed; absent: every app of the owner.
        var bundleIDs: [String]?
        var type: String?

        init?(_ event: StoreEvent, node: String) {
            self.node = node
            switch event {
            case .data(let change):
                (kind, owner) = (.data, change.owner.rawValue)
                spans = change.spans.mapValues { [$0.start, $0.end] }
                sources = change.sources.sorted()
            case .permissions(let owner, let bundleIDs):
                (kind, self.owner, self.bundleIDs) = (.permissions, owner.rawValue, bundleIDs.sorted())
            case .sourcePriority(let owner, let type):
                (kind, self.owner, self.type) = (.sourcePriority, owner.rawValue, type)
            case .credentials(let owner, let bundleID):
                (kind, self.owner, bundleIDs) = (.credentials, owner.rawValue, [bundleID])
            case .missed:
                return nil
            }
        }

        var json: String? {
            (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
        }

        /// The same news without its detail (only data and permission changes can grow long: the
        /// others name one checked bundle id or type).
        var coarse: Message {
            var coarse = self
            (coarse.spans, coarse.sources) = (nil, nil)
            if kind == .permissions { coarse.bundleIDs = nil }
            return coarse
        }

        var event: StoreEvent? {
            let owner = OwnerID(owner)
            switch kind {
            case .data:
                let spans = (spans ?? [:]).compactMapValues { $0.count == 2 ? TimeSpan(start: $0[0], end: $0[1]) : nil }
                return .data(ChangeEvent(owner: owner, spans: spans, sources: Set(sources ?? [])))
            case .permissions:
                return .permissions(owner: owner, bundleIDs: Set(bundleIDs ?? []))
            case .sourcePriority:
                return type.map { .sourcePriority(owner: owner, type: $0) }
            case .credentials:
                return bundleIDs?.first.map { .credentials(owner: owner, bundleID: $0) }
            }
        }
    }
}
