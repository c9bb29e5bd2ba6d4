import HealthModel

/// Workout routes and heartbeat series: read in full and checked, then reported, because
/// HealthStore has no series kinds to store them in yet.
enum SeriesMapping {
    static let notStored = "not stored: needs series types (issue 16)"

    /// The points of a `<WorkoutRoute>`: inline `<Location>`s (before iOS 13) or the GPX file its
    /// `<FileReference path=…>` names in the export.
    static func routePoints(_ route: ExportElement, archive: ExportArchive) throws(MappingFailure) -> Int {
        var points = 0
        for location in route.children("Location") {
            let date = location["date"] ?? ""
            guard ExportDates.instant(date) != nil, Double(location["latitude"] ?? "") != nil, Double(location["longitude"] ?? "") != nil else {
                throw .malformed("Location at line \(location.line) needs a date, latitude and longitude")
            }
            points += 1
        }
        for reference in route.children("FileReference") {
            let path = try SampleHeader.attribute(reference, "path")
            let source: ByteSource?
            do { source = try archive.openRelated(path) } catch { throw .refused(error.description) }
            guard let source else { throw .refused("route file \(path) is not in the export") }
            points += try gpxPoints(source, name: path)
        }
        return points
    }

    /// Counts a GPX 1.1 track's `<trkpt>`s, checking each has a position and a time.
    static func gpxPoints(_ source: ByteSource, name: String) throws(MappingFailure) -> Int {
        do {
            let stream = try XMLElementStream(source: source, fileName: name, yieldDepth: 3)
            var points = 0
            while let point = try stream.next() {
                guard point.name == "trkpt" else { continue }
                guard Double(point["lat"] ?? "") != nil, Double(point["lon"] ?? "") != nil,
                      let time = point.childText("time"), ExportDates.instant(time) != nil else {
                    throw MappingFailure.malformed("\(name):\(point.line): trkpt needs lat, lon and time")
                }
                points += 1
            }
            return points
        } catch let error as ImportError {
            throw .malformed(error.description)
        } catch let error as MappingFailure {
            throw error
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// The beats of a record's `<HeartRateVariabilityMetadataList>`, each time of day read in the
    /// record's own offset ("08:33:44,67" in French exports).
    static func beats(_ record: ExportElement, header: SampleHeader) throws(MappingFailure) -> Int {
        var beats = 0
        for list in record.children("HeartRateVariabilityMetadataList") {
            for beat in list.children("InstantaneousBeatsPerMinute") {
                let time = beat["time"] ?? ""
                guard Double(beat["bpm"] ?? "") != nil,
                      ExportDates.timeOfDay(time, onOrAfter: header.start, offset: header.startOffset) != nil else {
                    throw .malformed("InstantaneousBeatsPerMinute needs bpm and a time of day, not '\(time)'")
                }
                beats += 1
            }
        }
        return beats
    }
}
