import Foundation
import HealthModel

/// SEMANTICS §7.3: an object replaced by a greater sync version hands its place in workouts to its successor.
extension WriteContext {
    /// Every workout associated with `old` is associated with `new` instead (a workout already listing
    /// both keeps one association).
    func moveWorkoutAssociations(owner: Int64, from old: UUID, to new: UUID) throws(HealthError) {
        let move = try db.prepare("UPDATE OR IGNORE workout_samples SET sample_uuid = ? WHERE owner = ? AND sample_uuid = ?")
        move.bind(1, new)
        move.bind(2, owner)
        move.bind(3, old)
        try move.run()
        let leftover = try db.prepare("DELETE FROM workout_samples WHERE owner = ? AND sample_uuid = ?")
        leftover.bind(1, owner)
        leftover.bind(2, old)
        try leftover.run()
    }
}
