import HealthModel
import Synchronization

/// `Record` (quantity and category samples) and `Correlation` elements.
enum RecordMapping {
    /// A quantity or category sample. Pre-aggregated iOS 8/9 rows (`recordCount` above 1 with
    /// min/max/average) summarise several samples and are refused.
    static func record(_ element: ExportElement) throws(MappingFailure) -> (Sample, SampleHeader) {
        let typeName = try SampleHeader.attribute(element, .type)
        guard let type = TypeCatalog.type(typeName) else { throw .refused("type \(typeName) is not in HealthStore's catalog") }
        if let count = element[.recordCount], count != "1" {
            throw .refused("pre-aggregated row of \(count) records (iOS 8/9 min/max/average), not a sample")
        }
        let header = try SampleHeader(element)
        switch type.kind {
        case .quantity:
            guard let text = element[.value] ?? element[.average] else { throw .malformed("Record has no value") }
            guard let value = Double(text), value.isFinite else { throw .malformed("value '\(text)' is not a number") }
            let unit = try unitString(element[.unit] ?? type.canonicalUnit ?? "")
            return (header.sample(type: typeName, body: .quantity(Quantity(value, unit), count: 1)), header)
        case .category:
            let text = try SampleHeader.attribute(element, .value)
            guard let value = categoryValue(text, type: type) else {
                throw .malformed("value '\(text)' is not a value of \(typeName)")
            }
            return (header.sample(type: typeName, body: .category(value)), header)
        case .correlation, .workout, .characteristic, .series, .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            throw .refused("a Record of \(type.kind.rawValue) type \(typeName)")
        }
    }

    /// The unit as HealthStore spells it: exports write HealthKit's own unit strings, which the unit
    /// parser reads as they are ("mL/min·kg", "mmol<180.1558800000541>/L", "Cal").
    static func unitString(_ text: String) throws(MappingFailure) -> String {
        // Records of a type come in long runs with one unit: the last one that parsed is not looked up again.
        if lastUnit.withLock({ $0?.sameUTF8(text) == true }) { return text }
        do {
            _ = try HealthUnit.parse(text)
        } catch {
            throw .malformed(error.message)
        }
        lastUnit.withLock { $0 = text }
        return text
    }

    private static let lastUnit = Mutex<String?>(nil)

    /// "HKCategoryValueSleepAnalysisAsleepCore" → 3: the value name is the longest suffix naming one
    /// of the type's values; a bare number is the raw value.
    static func categoryValue(_ text: String, type: HealthType) -> Int64? {
        if let raw = Int64(text) { return type.categoryValues?.contains(raw) ?? true ? raw : nil }
        let name = text.lowercased()
        let aliases: [String: String] = ["asleep": "asleepUnspecified"]
        var best: (value: Int64, length: Int)?
        for (value, valueName) in type.valueNames {
            let candidates = [valueName] + aliases.filter { $0.value == valueName }.map(\.key)
            for candidate in candidates where name.hasSuffix(candidate.lowercased()) && candidate.count > (best?.length ?? 0) {
                best = (value, candidate.count)
            }
        }
        return best?.value
    }

    /// A correlation holding its nested records (the records themselves, not references).
    static func correlation(_ element: ExportElement) throws(MappingFailure) -> (Sample, SampleHeader) {
        let typeName = try SampleHeader.attribute(element, .type)
        guard let type = TypeCatalog.type(typeName), type.kind == .correlation else {
            throw .refused("correlation type \(typeName) is not in HealthStore's catalog")
        }
        let header = try SampleHeader(element)
        var children: [Sample] = []
        for child in element.children("Record") { children.append(try record(child).0) }
        return (header.sample(type: typeName, body: .correlation(children)), header)
    }
}
