import Foundation
import HealthModel

/// docs/semantics.md decision 4: tombstones live for a retention period; purging moves the horizon of each type and
/// source purged, so an anchor whose holder may need a purged deletion is answered with
/// ANCHOR_EXPIRED instead of silently missing it. Horizons per type and source let an expiry
/// depend only on deletions the holder could have been shown (docs/semantics.md decision 7).
extension WriteContext {
    func purgeTombstones(deletedBefore cutoff: Microseconds) throws(HealthError) -> Int {
        let horizons = try db.prepare("""
            INSERT INTO purge_horizons (owner, type, source, purged_through)
            SELECT owner, type, source, MAX(anchor) FROM tombstones WHERE deleted < ? GROUP BY owner, type, source
            ON CONFLICT (owner, type, source) DO UPDATE SET purged_through = CASE
                WHEN excluded.purged_through > purge_horizons.purged_through THEN excluded.purged_through
                ELSE purge_horizons.purged_through END
            """)
        horizons.bind(1, cutoff)
        try horizons.run()
        let delete = try db.prepare("DELETE FROM tombstones WHERE deleted < ?")
        delete.bind(1, cutoff)
        try delete.run()
        return db.changes
    }
}
