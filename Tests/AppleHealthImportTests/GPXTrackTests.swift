import Foundation
import HealthModel
import XCTest
@testable import AppleHealthImport

/// GPX route files read node by node (GPXTrack): each value from the first child of its name, Apple's
/// extensions from the first `<extensions>` only, and a point without its time refused with its line.
final class GPXTrackTests: XCTestCase {
    private func points(_ body: String) throws -> [RouteLocation] {
        let text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><name>Walk</name><trkseg>\n"
            + body + "\n</trkseg></trk></gpx>\n"
        let path = try SyntheticExport.directory().appendingPathComponent("route.gpx").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return try GPXTrack.points(try ByteSource.file(path), name: "route.gpx")
    }

    func testEachValueComesFromTheFirstChildOfItsName() throws {
        let point = "<trkpt lat=\"37.7\" lon=\"-122.3\"><ele>4.5</ele><ele>9</ele><time>2019-06-11T22:00:42.5Z</time>"
            + "<speed>7</speed><extensions><speed>0.18</speed><course>206.25</course><hAcc>8.06</hAcc><vAcc>6.42</vAcc>"
            + "<speed>1</speed></extensions><extensions><course>1</course></extensions></trkpt>"
        XCTAssertEqual(try points(point), [
            RouteLocation(time: 1_560_290_442_500_000, latitude: 37.7, longitude: -122.3, altitude: 4.5, horizontalAccuracy: 8.06,
                          verticalAccuracy: 6.42, course: 206.25, speed: 0.18),
        ])
    }

    func testMissingAndEmptyValuesTakeTheirDefaults() throws {
        let points = try points("<trkpt lon=\"-122.3\" lat=\"37.7\"><ele/><time>2019-06-11T22:00:43+02:00</time><extensions/></trkpt>\n"
            + "<trkpt lon=\"1\" lat=\"2\"><time>2019-06-11T22:00:44Z</time><extensions><hAcc>x</hAcc><speed></speed></extensions></trkpt>")
        XCTAssertEqual(points, [
            RouteLocation(time: 1_560_283_243_000_000, latitude: 37.7, longitude: -122.3, altitude: 0),
            RouteLocation(time: 1_560_290_444_000_000, latitude: 2, longitude: 1, altitude: 0),
        ])
    }

    func testTextInSeveralNodesIsJoined() throws {
        let point = "<trkpt lat=\"1\" lon=\"2\"><time>2019-06-11T<![CDATA[22:00:42]]>Z</time><ele>1<!-- c -->2</ele></trkpt>"
        XCTAssertEqual(try points(point), [RouteLocation(time: 1_560_290_442_000_000, latitude: 1, longitude: 2, altitude: 12)])
    }

    func testAPointWithoutTimeOrCoordinatesIsRefusedWithItsLine() throws {
        for point in ["<trkpt lat=\"1\" lon=\"2\"><ele>3</ele></trkpt>", "<trkpt lat=\"1\" lon=\"2\"><time/></trkpt>",
                      "<trkpt lat=\"1\"><time>2019-06-11T22:00:42Z</time></trkpt>", "<trkpt lat=\"1\" lon=\"2\"/>",
                      "<trkpt lat=\"1\" lon=\"x\"><time>2019-06-11T22:00:42Z</time></trkpt>"] {
            XCTAssertThrowsError(try points("<trkpt lat=\"1\" lon=\"2\"><time>2019-06-11T22:00:41Z</time></trkpt>\n" + point), point) { error in
                XCTAssertEqual(error as? MappingFailure, .malformed("route.gpx:4: trkpt needs lat, lon and time"), point)
            }
        }
    }

    func testMalformedXMLNamesFileLineAndColumn() throws {
        XCTAssertThrowsError(try points("<trkpt lat=\"1\" lon=\"2\"><time>2019-06-11T22:00:41Z</time></trkpt>\n<trkpt lat=1/>")) { error in
            guard case .malformed(let reason)? = error as? MappingFailure else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.hasPrefix("route.gpx:4:"), reason)
        }
    }
}
