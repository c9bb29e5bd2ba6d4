import CLibZip
import Foundation

/// An export as the Health app writes it: `export.zip`, the folder it unzips to, or a bare
/// `export.xml`. Opens the document and the files it refers to (the GPX routes).
public final class ExportArchive {
    private enum Location {
        /// The folder holding export.xml: FileReference paths are relative to it.
        case folder(document: String, root: String)
        /// The zip and the folder inside it holding export.xml ("apple_health_export/").
        case zip(OpaquePointer, entry: Int64, prefix: String)
    }

    private let location: Location
    /// The path the user gave.
    public let path: String

    public init(path: String) throws(ImportError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError.cannotOpen(path, "no such file or directory")
        }
        if isDirectory.boolValue {
            location = try Self.folder(path)
        } else if Self.isZip(path) {
            location = try Self.zip(path)
        } else {
            location = .folder(document: path, root: (path as NSString).deletingLastPathComponent)
        }
    }

    deinit {
        if case .zip(let archive, _, _) = location { zip_discard(archive) }
    }

    /// A name to show for the document (the zip entry or the file path).
    public var documentName: String {
        switch location {
        case .folder(let document, _): return document
        case .zip(let archive, let entry, _): return path + ":" + String(cString: zip_get_name(archive, UInt64(entry), 0))
        }
    }

    /// The export document.
    func openDocument() throws(ImportError) -> ByteSource {
        switch location {
        case .folder(let document, _): return try ByteSource.file(document)
        case .zip(let archive, let entry, _): return try Self.open(archive, entry: entry, name: documentName)
        }
    }

    /// A file the document refers to by a path such as "/workout-routes/route_….gpx"; nil when the
    /// export does not hold it.
    func openRelated(_ reference: String) throws(ImportError) -> ByteSource? {
        let relative = reference.hasPrefix("/") ? String(reference.dropFirst()) : reference
        switch location {
        case .folder(_, let root):
            let file = (root as NSString).appendingPathComponent(relative)
            return FileManager.default.fileExists(atPath: file) ? try ByteSource.file(file) : nil
        case .zip(let archive, _, let prefix):
            let index = zip_name_locate(archive, prefix + relative, 0)
            return index < 0 ? nil : try Self.open(archive, entry: index, name: path + ":" + prefix + relative)
        }
    }

    private static func isZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    private static func folder(_ path: String) throws(ImportError) -> Location {
        for candidate in ["export.xml", "apple_health_export/export.xml", "exporter.xml"] {
            let document = (path as NSString).appendingPathComponent(candidate)
            if FileManager.default.fileExists(atPath: document) {
                return .folder(document: document, root: (document as NSString).deletingLastPathComponent)
            }
        }
        throw ImportError.cannotOpen(path, "the folder holds no export.xml (nor apple_health_export/export.xml)")
    }

    /// The zip's export.xml: the Health app's "apple_health_export/export.xml", or the one export.xml
    /// elsewhere; macOS's "__MACOSX/" resource forks are not documents.
    private static func zip(_ path: String) throws(ImportError) -> Location {
        var status: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY, &status) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, status)
            defer { zip_error_fini(&error) }
            throw ImportError.cannotOpen(path, String(cString: zip_error_strerror(&error)))
        }
        var found: (index: Int64, name: String)?
        for index in 0..<zip_get_num_entries(archive, 0) {
            guard let cName = zip_get_name(archive, UInt64(index), 0) else { continue }
            let name = String(cString: cName)
            guard !name.hasPrefix("__MACOSX/"), name == "export.xml" || name.hasSuffix("/export.xml") else { continue }
            if found == nil || name == "apple_health_export/export.xml" { found = (index, name) }
        }
        guard let found else {
            zip_discard(archive)
            throw ImportError.cannotOpen(path, "the zip holds no export.xml (expected apple_health_export/export.xml)")
        }
        return .zip(archive, entry: found.index, prefix: String(found.name.dropLast("export.xml".count)))
    }

    /// Streams one zip entry: it is inflated as it is read, never held whole.
    private static func open(_ archive: OpaquePointer, entry: Int64, name: String) throws(ImportError) -> ByteSource {
        var stat = zip_stat_t()
        zip_stat_init(&stat)
        guard zip_stat_index(archive, UInt64(entry), 0, &stat) == 0, let file = zip_fopen_index(archive, UInt64(entry), 0) else {
            throw ImportError.cannotOpen(name, String(cString: zip_strerror(archive)))
        }
        return ByteSource(totalBytes: Int64(stat.size), read: { buffer, count in
            Int(zip_fread(file, buffer, UInt64(count)))
        }, close: { zip_fclose(file) })
    }
}
