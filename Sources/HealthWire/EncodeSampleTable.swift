import HealthModel
import HealthProto

/// A `SampleTable` → protobuf-c samples. Each type, unit, device and source revision a table row
/// names is built once per message and every sample's field points at that one struct, so a page
/// of thousands of samples from a few devices builds a few device and revision submessages.
extension WireArena {
    func samples(_ table: SampleTable) -> CList<Healthstore__V1__Sample> {
        let types = Shared<CChar>(table.types.count, in: self), units = Shared<CChar>(table.units.count, in: self)
        let devices = Shared<Healthstore__V1__Device>(table.devices.count, in: self)
        let revisions = Shared<Healthstore__V1__SourceRevision>(table.revisions.count, in: self)
        return list(table.rows) { row in
            let p: UnsafeMutablePointer<Healthstore__V1__Sample>
            switch row.body {
            case .whole(let index):
                return sample(table.wholes[index])
            case .quantity(let value, let unit, let count):
                p = message(healthstore__v1__sample__init)
                let body = message(healthstore__v1__quantity_body__init)
                let q = message(healthstore__v1__quantity__init)
                q.pointee.value = value
                q.pointee.unit = units.get(unit) { cString(table.units[$0]) }
                body.pointee.quantity = q
                body.pointee.count = count
                p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY
                p.pointee.quantity = body
            case .category(let value):
                p = message(healthstore__v1__sample__init)
                let body = message(healthstore__v1__category_body__init)
                body.pointee.value = value
                p.pointee.body_case = HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY
                p.pointee.category = body
            }
            p.pointee.uuid = binary(row.uuid)
            p.pointee.type = types.get(row.type) { cString(table.types[$0]) }
            p.pointee.start_time = row.start
            p.pointee.end_time = row.end
            if row.device >= 0 { p.pointee.device = devices.get(row.device) { device(table.devices[$0]) } }
            if row.revision >= 0 { p.pointee.source_revision = revisions.get(row.revision) { sourceRevision(table.revisions[$0]) } }
            p.pointee.creation_time = row.creationTime ?? 0
            return p
        }
    }

    /// One pointer per shared part, built on first use.
    private struct Shared<C> {
        private let built: UnsafeMutablePointer<UnsafeMutablePointer<C>?>?

        init(_ count: Int, in arena: WireArena) {
            built = arena.array(count, of: UnsafeMutablePointer<C>?.self)
            built?.initialize(repeating: nil, count: count)
        }

        func get(_ index: Int32, build: (Int) -> UnsafeMutablePointer<C>) -> UnsafeMutablePointer<C> {
            if let known = built![Int(index)] { return known }
            let made = build(Int(index))
            built![Int(index)] = made
            return made
        }
    }
}
