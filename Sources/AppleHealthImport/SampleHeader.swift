import Foundation
import HealthModel

/// What every sample element carries: source, device, times and metadata, in HealthStore's terms.
struct SampleHeader {
    let sourceName: String
    let revision: SourceRevision
    let device: Device?
    let start: Microseconds
    let end: Microseconds
    /// The UTC offset the start date was written with (beat times are local times of day).
    let startOffset: Int
    let metadata: Metadata
    /// Metadata entries HealthStore refuses to store, by reason.
    let droppedMetadata: [String]

    /// Reads the shared attributes; iOS 8/9 exports name the source `source=` instead of `sourceName=`.
    init(_ element: ExportElement) throws(MappingFailure) {
        guard let name = element[.sourceName] ?? element[.source], !name.isEmpty else {
            throw .malformed("\(element.name) has no sourceName")
        }
        sourceName = name
        // The bundle id is left empty: exports name sources only by display name, and the server
        // derives the same id from the same name on every import.
        revision = SourceRevision(source: Source(name: name, bundleID: ""), version: element[.sourceVersion])
        (start, startOffset) = try Self.date(element, .startDate)
        end = try Self.date(element, .endDate).instant
        let entries = element.children.compactMap { $0.name == "MetadataEntry" ? (key: $0[.key] ?? "", value: $0[.value] ?? "") : nil }
        let mapped = MetadataMapping.map(entries)
        metadata = mapped.metadata
        droppedMetadata = mapped.dropped
        device = (element.withBytes(.device, DeviceDescription.parse) ?? nil) ?? DeviceDescription.fromMetadata(entries)
    }

    static func attribute(_ element: ExportElement, _ attribute: ExportElement.Attribute) throws(MappingFailure) -> String {
        guard let value = element[attribute], !value.isEmpty else { throw .malformed("\(element.name) has no \(attribute.name)") }
        return value
    }

    /// A date attribute's instant and the UTC offset it was written with, read from the attribute's bytes.
    static func date(_ element: ExportElement, _ attribute: ExportElement.Attribute) throws(MappingFailure) -> (instant: Microseconds, offset: Int) {
        if let date = element.withBytes(attribute, ExportDates.instantAndOffset) ?? nil { return date }
        let text = try Self.attribute(element, attribute)
        throw .malformed("\(attribute.name) '\(text)' is not a date")
    }

    /// A sample with this header and `body`, its UUID derived from its content.
    func sample(type: String, body: SampleBody) -> Sample {
        let uuid = SampleIdentity.uuid(type: type, sourceName: sourceName, device: device, start: start, end: end, body: body,
                                       metadata: metadata)
        return Sample(uuid: uuid, type: type, start: start, end: end, metadata: metadata, device: device, sourceRevision: revision,
                      body: body)
    }
}
