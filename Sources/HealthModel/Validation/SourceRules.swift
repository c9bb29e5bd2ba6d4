import Foundation

/// Rules for the sources data is saved as: registered apps' bundle ids, and the sources an owner's
/// import (SaveObjects with keep_sources) names on each object.
public enum SourceRules {
    /// INVALID_ARGUMENT unless `bundleID` is 1–255 ASCII letters, digits, '.', '-' or '_'.
    public static func checkBundleID(_ bundleID: String, field: String = "bundle_id") throws(HealthError) {
        let allowed = bundleID.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }
        guard !bundleID.isEmpty, bundleID.count <= 255, allowed else {
            throw HealthError.invalid("bundle id '\(bundleID)' must be 1–255 letters, digits, '.', '-' or '_'", field: field)
        }
    }

    /// The bundle id an imported source without one gets: "imported.", the name's ASCII letters and
    /// digits lowercased with every run of other characters as one "-" (at most 64 characters),
    /// then "." and the 32-bit FNV-1a hash of the name's UTF-8 in 8 hex digits. The same name always
    /// gives the same id, and names differing only in case or punctuation stay distinct sources
    /// (an Apple Health export names sources only by display name).
    public static func importedBundleID(forName name: String) -> String {
        var slug = ""
        for character in name.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                slug.append(character)
            } else if !slug.isEmpty, slug.last != "-" {
                slug.append("-")
            }
        }
        while slug.last == "-" { slug.removeLast() }
        var hash: UInt32 = 0x811c_9dc5
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash, radix: 16)
        let parts = ["imported", String(slug.prefix(64)), String(repeating: "0", count: 8 - hex.count) + hex]
        return parts.filter { !$0.isEmpty }.joined(separator: ".")
    }

    /// The objects of a keep_sources batch with their source revisions made complete: each needs a
    /// source name; an empty bundle id is derived from it (`importedBundleID(forName:)`). A
    /// correlation's objects are saved as the correlation's source, so theirs are not read.
    public static func keptSources(_ objects: [Sample]) throws(HealthError) -> [Sample] {
        var kept: [Sample] = []
        kept.reserveCapacity(objects.count)
        // An export's objects come in long runs of one source: its revision is made complete once per
        // run, and the objects of a run share it (the writer then compares it by identity).
        var last: (given: SourceRevision, kept: SourceRevision)?
        for (index, object) in objects.enumerated() {
            do throws(HealthError) {
                guard let given = object.sourceRevision else {
                    throw HealthError.invalid("with keep_sources every object needs the name of the source it is saved as",
                                              field: "source_revision.source.name")
                }
                let revision: SourceRevision
                if let last, last.given == given {
                    revision = last.kept
                } else {
                    revision = try keptRevision(given)
                    last = (given, revision)
                }
                kept.append(object.saved(as: revision))
            } catch {
                throw error.at(index: index)
            }
        }
        return kept
    }

    /// A kept source revision made complete: the source name is required; an empty bundle id is
    /// derived from it (`importedBundleID(forName:)`).
    public static func keptRevision(_ given: SourceRevision) throws(HealthError) -> SourceRevision {
        guard !given.source.name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HealthError.invalid("with keep_sources every object needs the name of the source it is saved as",
                                      field: "source_revision.source.name")
        }
        var bundleID = given.source.bundleID
        if bundleID.isEmpty {
            bundleID = importedBundleID(forName: given.source.name)
        } else {
            try checkBundleID(bundleID, field: "source_revision.source.bundle_id")
        }
        return SourceRevision(source: Source(name: given.source.name, bundleID: bundleID), version: given.version,
                              productType: given.productType, osMajor: given.osMajor, osMinor: given.osMinor,
                              osPatch: given.osPatch)
    }
}

extension Sample {
    /// This object as saved by `revision` (an import's kept source), with no creation time of its own.
    public func saved(as revision: SourceRevision) -> Sample {
        Sample(uuid: uuid, type: type, start: start, end: end, metadata: metadata, device: device, sourceRevision: revision,
               creationTime: nil, body: body)
    }
}
