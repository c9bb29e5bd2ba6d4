import Foundation
import HealthModel

/// Decision 4: tombstones live for a retention period; purging one moves the owner's horizon, so an
/// anchor from before it is answered with ANCHOR_EXPIRED instead of silently missing deletions.
extension WriteContext {
    func purgeTombstones(deletedBefore cutoff: Microseconds) throws(HealthError) -> Int {
        let horizons = try db.prepare("SELECT owner, MAX(anchor) FROM tombstones WHERE deleted < ? GROUP BY owner")
        horizons.bind(1, cutoff)
        var moved: [(Int64, Int64)] = []
        while try horizons.step() { moved.append((horizons.int(0), horizons.int(1))) }
        let update = try db.prepare("UPDATE owners SET purged_anchor = MAX(purged_anchor, ?) WHERE id = ?")
        for (owner, anchor) in moved {
            update.reset()
            update.bind(1, anchor)
            update.bind(2, owner)
            try update.run()
        }
        let delete = try db.prepare("DELETE FROM tombstones WHERE deleted < ?")
        delete.bind(1, cutoff)
        try delete.run()
        return db.changes
    }
}
