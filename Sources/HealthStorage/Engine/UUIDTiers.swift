import Foundation
import HealthModel

/// UUID uniqueness in tiers, like the runs of a log-structured merge tree, inside one index:
/// `samples_by_uuid` is (owner, uuid_tier, uuid), unique. New rows enter the recent tier, a small
/// B-tree whose few leaves each commit dirties again; once it holds `WriteContext.recentUUIDLimit`
/// UUIDs they move, in UUID order, to the middle tier, and a sixteenth of the middle tier (a UUID
/// range, in turn) moves to the merged tier. A save thus touches pages of a small index instead of a
/// random leaf of one holding every UUID, whose every dirtied page was written to the WAL and
/// checkpointed back: that grew with the store and was most of its slowdown with size.
///
/// A UUID is in exactly one tier: the unique index enforces it within the recent tier, and a save
/// checks the two older tiers before inserting (under the writer's lock, so nothing moves meanwhile).
/// Every lookup by UUID names all three tiers (`all`), three seeks in one index.
enum UUIDTiers {
    static let merged: Int64 = 0, middle: Int64 = 1, recent: Int64 = 2
    /// The condition every lookup of `samples` by UUID adds to `uuid = …`, for a table alias `prefix`.
    static func all(_ prefix: String = "") -> String { "\(prefix)uuid_tier IN (0, 1, 2)" }
    /// How many UUID ranges the middle tier is moved on in, one per move of the recent tier, so it
    /// holds about this many recent tiers' worth.
    static let slices = 16
    /// Recent-tier UUIDs per owner before they move on: the tier's leaves then stay a few hundred pages.
    static let recentLimit = 65_536

    /// The bounds of UUID range `slice` of `slices`: by first byte, the last one open above (a
    /// 17-byte bound sorts after every 16-byte UUID on both engines).
    static func bounds(of slice: Int) -> (lower: Data, upper: Data) {
        let width = 256 / slices
        let upper = slice == slices - 1 ? Data(repeating: 0xFF, count: 17) : Data([UInt8(width * (slice + 1))])
        return (Data([UInt8(width * slice)]), upper)
    }
}

extension WriteContext {
    /// Of `uuids`, those the owner already holds in the two older tiers (the unique index catches the
    /// recent tier's on insert). One statement for a chunk, so a PostgreSQL save pays one round trip.
    func uuidsInOlderTiers(owner: Int64, _ uuids: [UUID]) throws(HealthError) -> Set<UUID> {
        guard db.dialect.tiersUUIDs, !uuids.isEmpty else { return [] }
        let sql = "SELECT uuid FROM samples WHERE owner = ? AND uuid_tier IN (0, 1) AND uuid IN ("
            + Array(repeating: "?", count: uuids.count).joined(separator: ", ") + ")"
        // A chunk's or a lone sample's size repeats: prepared once; other sizes would only fill the cache.
        let query = uuids.count == 1 || uuids.count == db.dialect.samplesPerInsert ? try db.prepare(sql) : try db.prepareOnce(sql)
        defer { query.reset() }
        query.bind(1, owner)
        for (offset, uuid) in uuids.enumerated() { query.bind(Int32(offset + 2), uuid) }
        var taken: Set<UUID> = []
        while try query.step() { taken.insert(query.uuid(0)) }
        return taken
    }

    /// Notes `count` rows entered the owner's recent tier, and moves the tiers on once it is full.
    func noteRecentUUIDs(owner: Int64, _ count: Int) throws(HealthError) {
        guard db.dialect.tiersUUIDs, count > 0 else { return }
        let held = try recentUUIDCount(owner: owner) + count
        guard held >= recentUUIDLimit else {
            recentUUIDs[owner] = held
            return
        }
        // The middle tier's next range first, so the UUIDs moved in now stay there for a whole round.
        let slice = nextUUIDSlice[owner, default: 0]
        let (lower, upper) = UUIDTiers.bounds(of: slice)
        let toMerged = try db.prepare("UPDATE samples SET uuid_tier = 0 WHERE owner = ? AND uuid_tier = 1 AND uuid >= ? AND uuid < ?")
        toMerged.bind(1, owner)
        toMerged.bind(2, lower)
        toMerged.bind(3, upper)
        try toMerged.run()
        let toMiddle = try db.prepare("UPDATE samples SET uuid_tier = 1 WHERE owner = ? AND uuid_tier = 2")
        toMiddle.bind(1, owner)
        try toMiddle.run()
        nextUUIDSlice[owner] = (slice + 1) % UUIDTiers.slices
        recentUUIDs[owner] = 0
    }

    /// The owner's recent-tier UUIDs, counted once per writer (after a restart the tier may hold some).
    private func recentUUIDCount(owner: Int64) throws(HealthError) -> Int {
        if let known = recentUUIDs[owner] { return known }
        let count = try db.prepare("SELECT count(*) FROM samples WHERE owner = ? AND uuid_tier = 2")
        defer { count.reset() }
        count.bind(1, owner)
        _ = try count.step()
        return Int(count.int(0))
    }
}
