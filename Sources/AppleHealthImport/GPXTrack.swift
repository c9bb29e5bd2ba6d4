import CLibXML2
import HealthModel

/// A GPX 1.1 track's points read node by node from libxml2's reader, each value parsed from the
/// reader's bytes: a route holds thousands of points, and building each as an `ExportElement` with
/// its children cost more than the rest of its workout.
struct GPXTrack {
    /// The values a point takes from its children: `<ele>`, `<time>` and, inside its first
    /// `<extensions>`, Apple's `<speed>`, `<course>`, `<hAcc>` and `<vAcc>`. Each is read from the
    /// first child of its name only.
    private enum Field: Int, CaseIterable {
        case ele, time, speed, course, hAcc, vAcc

        var inExtensions: Bool { self != .ele && self != .time }
    }

    private let stream: XMLElementStream
    private let name: String
    /// Interned names, compared by pointer with the reader's node names.
    private let trkpt, lat, lon, extensions: UnsafePointer<xmlChar>?
    private let fields: [UnsafePointer<xmlChar>?]
    /// The text of each field of the point being read (text may come in several nodes), and which
    /// fields it has met (bit `rawValue`).
    private var texts = [[UInt8]](repeating: [], count: Field.allCases.count)
    private var met: UInt8 = 0

    /// A GPX 1.1 track's `<trkpt>`s (at depth 3: gpx, trk, trkseg) with their elevation, time and
    /// Apple's extensions (speed, course, horizontal and vertical accuracy).
    static func points(_ source: ByteSource, name: String) throws(MappingFailure) -> [RouteLocation] {
        do {
            var track = try GPXTrack(stream: XMLElementStream(source: source, fileName: name, yieldDepth: 3), name: name)
            return try track.read()
        } catch let error as ImportError {
            throw .malformed(error.description)
        } catch let error as MappingFailure {
            throw error
        } catch {
            throw .malformed("\(error)")
        }
    }

    private init(stream: XMLElementStream, name: String) {
        self.stream = stream
        self.name = name
        (trkpt, lat, lon, extensions) = (stream.interned("trkpt"), stream.interned("lat"), stream.interned("lon"),
                                         stream.interned("extensions"))
        fields = Field.allCases.map { stream.interned(String(describing: $0)) }
    }

    private mutating func read() throws -> [RouteLocation] {
        let reader = stream.reader
        var points: [RouteLocation] = []
        // The point being read: its line and attributes; the field whose text is being read (and the
        // depth of that text); whether the point's first <extensions> is open, and was met.
        var point: (line: Int, latitude: Double?, longitude: Double?)?
        var field: (field: Field, textDepth: Int32)?
        var extensionsOpen = false, extensionsMet = false
        while try stream.advance() {
            let depth = xmlTextReaderDepth(reader)
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = xmlTextReaderConstName(reader)
                let empty = xmlTextReaderIsEmptyElement(reader) == 1
                if depth == 3 {
                    guard name == trkpt else { continue }
                    point = (stream.nodeLine, nil, nil)
                    for index in texts.indices { texts[index].removeAll(keepingCapacity: true) }
                    met = 0
                    extensionsOpen = false
                    extensionsMet = false
                    while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                        let attribute = xmlTextReaderConstName(reader)
                        if attribute == lat { point?.latitude = Self.number(xmlTextReaderConstValue(reader)) }
                        if attribute == lon { point?.longitude = Self.number(xmlTextReaderConstValue(reader)) }
                    }
                    xmlTextReaderMoveToElement(reader)
                    if empty, let done = point {
                        points.append(try finish(done))
                        point = nil
                    }
                } else if point != nil, depth == 4, name == extensions {
                    extensionsOpen = !extensionsMet && !empty
                    extensionsMet = true
                } else if point != nil, depth == 4 || (depth == 5 && extensionsOpen),
                          let index = fields.firstIndex(where: { $0 == name }), let found = Field(rawValue: index),
                          found.inExtensions == (depth == 5), !has(found) {
                    met |= 1 << found.rawValue
                    guard !empty else { continue }
                    field = (found, depth + 1)
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if depth == 3, let done = point {
                    points.append(try finish(done))
                    point = nil
                } else if depth == 4, extensionsOpen, xmlTextReaderConstName(reader) == extensions {
                    extensionsOpen = false
                }
                if let open = field, depth < open.textDepth { field = nil }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                guard let open = field, depth == open.textDepth, let value = xmlTextReaderConstValue(reader) else { continue }
                texts[open.field.rawValue].append(contentsOf: UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
            default:
                continue
            }
        }
        return points
    }

    private func finish(_ point: (line: Int, latitude: Double?, longitude: Double?)) throws(MappingFailure) -> RouteLocation {
        let time = has(.time) ? texts[Field.time.rawValue].withUnsafeBufferPointer { ExportDates.instantAndOffset($0)?.instant } : nil
        guard let latitude = point.latitude, let longitude = point.longitude, let time else {
            throw MappingFailure.malformed("\(name):\(point.line): trkpt needs lat, lon and time")
        }
        func value(_ field: Field) -> Double? { has(field) ? texts[field.rawValue].withUnsafeBufferPointer(Self.number) : nil }
        return RouteLocation(time: time, latitude: latitude, longitude: longitude, altitude: value(.ele) ?? 0,
                             horizontalAccuracy: value(.hAcc) ?? 0, verticalAccuracy: value(.vAcc) ?? -1,
                             course: value(.course) ?? -1, speed: value(.speed) ?? -1)
    }

    private func has(_ field: Field) -> Bool { met & 1 << field.rawValue != 0 }

    /// A finite number as `Double(String)` reads it; a number's short text makes no heap string.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        Double(String(decoding: bytes, as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
    }

    private static func number(_ value: UnsafePointer<xmlChar>?) -> Double? {
        guard let value else { return nil }
        return number(UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
    }
}
