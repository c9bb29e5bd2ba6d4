import Foundation
import HealthModel

/// The workouts and correlation holding an object when it is replaced (docs/semantics.md §7.3) or deleted.
extension WriteContext {
    /// Every workout associated with `old` is associated with `new` instead (a workout already listing
    /// both keeps one association), or with nothing when `new` is nil; returns those workouts' anchors.
    func moveWorkoutAssociations(owner: Int64, from old: UUID, to new: UUID?) throws(HealthError) -> [Int64] {
        let holders = try db.prepare("SELECT workout FROM workout_samples WHERE owner = ? AND sample_uuid = ?")
        holders.bind(1, owner)
        holders.bind(2, old)
        var workouts: [Int64] = []
        while try holders.step() { workouts.append(holders.int(0)) }
        if let new {
            let move = try db.prepare("""
                UPDATE workout_samples SET sample_uuid = ?1 WHERE owner = ?2 AND sample_uuid = ?3 AND NOT EXISTS (
                    SELECT 1 FROM workout_samples o WHERE o.owner = ?2 AND o.workout = workout_samples.workout AND o.sample_uuid = ?1)
                """)
            move.bind(1, new)
            move.bind(2, owner)
            move.bind(3, old)
            try move.run()
        }
        let leftover = try db.prepare("DELETE FROM workout_samples WHERE owner = ? AND sample_uuid = ?")
        leftover.bind(1, owner)
        leftover.bind(2, old)
        try leftover.run()
        return workouts
    }

    /// Moves a correlation or workout whose contents changed to a new anchor, so anchored queries
    /// report it again with what it holds now; everything that points at it by anchor follows.
    /// Nothing when it is gone itself (a correlation deleted with its readings).
    func reanchor(owner: Int64, _ old: Int64, bundleID: String) throws(HealthError) {
        // Holders are correlations and workouts, found by anchor alone: a seek under each of the owner's types.
        let row = try db.prepare("""
            SELECT type, start_time, end_time, uuid FROM samples
            WHERE owner = ?1 AND type IN (SELECT id FROM types WHERE owner = ?1) AND anchor = ?2
            """)
        row.bind(all: [.int(owner), .int(old)])
        guard try row.step() else { return }
        let type = row.int(0), span = TimeSpan(start: row.int(1), end: row.int(2)), uuid = row.uuid(3)
        row.reset()
        let new = try nextAnchor(owner: owner)
        let move = try db.prepare("UPDATE samples SET anchor = ? WHERE owner = ? AND type = ? AND anchor = ?")
        move.bind(all: [.int(new), .int(owner), .int(type), .int(old)])
        try move.run()
        try reanchorUUID(owner: owner, uuid, type: type, from: old, to: new)
        for sql in ["UPDATE samples SET parent = ?1 WHERE owner = ?2 AND parent = ?3",
                    "UPDATE workouts SET anchor = ?1 WHERE owner = ?2 AND anchor = ?3",
                    "UPDATE workout_samples SET workout = ?1 WHERE owner = ?2 AND workout = ?3",
                    "UPDATE tombstones SET parent = ?1 WHERE owner = ?2 AND parent = ?3"] {
            let statement = try db.prepare(sql)
            statement.bind(all: [.int(new), .int(owner), .int(old)])
            try statement.run()
        }
        noteChange(owner: owner, type: try registry.type(type, owner: owner, db), span: span, bundleID: bundleID)
    }
}
