import HealthModel
import XCTest
@testable import HealthSimulator

/// Determinism and realism of the generated signals over a few simulated days.
final class GeneratorTests: XCTestCase {
    /// 2025-03-10T00:00:00Z.
    let from: Microseconds = 1_741_564_800_000_000
    let day: Microseconds = 86_400_000_000

    func generator(_ id: String, seed: UInt64 = 42) throws -> DeviceGenerator {
        let fleet = BuiltinFleet.fleet
        let profile = try XCTUnwrap(fleet.devices.first { $0.id == id })
        return try DeviceGenerator(profile: profile, person: XCTUnwrap(fleet.person(for: profile)), seed: seed)
    }

    func samples(_ id: String, seed: UInt64 = 42, days: Int64 = 3) throws -> [Sample] {
        try generator(id, seed: seed).samples(from: from, to: from + days * day)
    }

    func testSameSeedSameSamplesDifferentSeedDifferent() throws {
        for id in BuiltinFleet.fleet.devices.map(\.id) {
            let a = try samples(id), b = try samples(id)
            XCTAssertFalse(a.isEmpty, id)
            XCTAssertEqual(a, b, id)
            XCTAssertNotEqual(a, try samples(id, seed: 43), id)
        }
    }

    func testWindowsComposeIntoTheWhole() throws {
        let g = try generator("watch")
        let whole = g.samples(from: from, to: from + 2 * day)
        let step = day / 4 + 12_345_678
        let split = stride(from: from, to: from + 2 * day, by: Int(step)).flatMap {
            g.samples(from: $0, to: min(from + 2 * day, $0 + step))
        }
        XCTAssertEqual(whole.count, split.count)
        XCTAssertEqual(Set(whole), Set(split))
    }

    func testEverySampleHasUniqueUUIDAndSyncKeyAndDevice() throws {
        for device in BuiltinFleet.fleet.devices {
            let all = try samples(device.id).flatMap { [$0] + ($0.correlationObjects ?? []) }
            XCTAssertEqual(Set(all.map(\.uuid)).count, all.count, device.id)
            XCTAssertEqual(Set(all.compactMap { $0.syncKey?.identifier }).count, all.count, device.id)
            XCTAssertTrue(all.allSatisfy { $0.device == device.device.device }, device.id)
            XCTAssertTrue(all.allSatisfy { $0.start <= $0.end }, device.id)
        }
    }

    func testHeartRateStaysInPhysiologicalRange() throws {
        let rates = try samples("watch").filter { $0.type == HKType.heartRate }.compactMap { try $0.quantity?.value(in: "count/min") }
        XCTAssertGreaterThan(rates.count, 3 * 288)
        XCTAssertTrue(rates.allSatisfy { (35...200).contains($0) }, "\(rates.min()!)…\(rates.max()!)")
    }

    func testSleepStagesLieInBedAndNeverOverlap() throws {
        for id in ["watch", "band"] {
            let sleep = try samples(id).filter { $0.type == HKType.sleepAnalysis }
            let inBed = sleep.filter { $0.categoryValue == 0 }
            let stages = sleep.filter { $0.categoryValue != 0 }.sorted { $0.start < $1.start }
            XCTAssertGreaterThanOrEqual(inBed.count, 2, id)
            XCTAssertFalse(stages.isEmpty, id)
            for (a, b) in zip(stages, stages.dropFirst()) {
                XCTAssertLessThanOrEqual(a.end, b.start, id)
            }
            for stage in stages {
                XCTAssertTrue(inBed.contains { $0.start <= stage.start && stage.end <= $0.end }, id)
            }
            XCTAssertNotEqual(stages.first?.categoryValue, 2, "\(id): awake only between sleep samples")
        }
        let bandValues = Set(try samples("band").compactMap(\.categoryValue))
        XCTAssertTrue(bandValues.isSubset(of: [0, 1, 2]), "a band without stage detection writes asleepUnspecified")
    }

    func testStepsOnlyWhileMovingAndWatchAndPhoneShareWalks() throws {
        let g = try generator("watch")
        let first = g.timeline.day(of: from)
        let body = Physiology(timeline: g.timeline, days: (first - 1)...(first + 3))
        let moving = body.movingSegments()
        let watch = try samples("watch").filter { $0.type == HKType.stepCount }
        let phone = try samples("phone").filter { $0.type == HKType.stepCount }
        for s in watch + phone {
            XCTAssertTrue(moving.contains { $0.start <= s.start && s.end <= $0.end }, "steps outside a walk at \(s.start)")
        }
        let overlapping = phone.filter { p in watch.contains { $0.start < p.end && p.start < $0.end } }
        XCTAssertGreaterThan(overlapping.count, 0, "watch and phone must count the same walks")
    }

    func testWorkoutTotalsAddUpToAssociatedSamples() throws {
        let all = try samples("watch", days: 7)
        let workouts = all.filter { $0.type == HKType.workout }
        XCTAssertFalse(workouts.isEmpty)
        let byUUID = Dictionary(uniqueKeysWithValues: all.map { ($0.uuid, $0) })
        for w in workouts {
            let workout = try XCTUnwrap(w.workout)
            let associated = workout.associatedSampleUUIDs.compactMap { byUUID[$0] }
            XCTAssertEqual(associated.count, workout.associatedSampleUUIDs.count)
            XCTAssertTrue(associated.allSatisfy { w.start <= $0.start && $0.end <= w.end })
            let energy = associated.filter { $0.type == HKType.activeEnergy }.compactMap { try? $0.quantity?.value(in: "kcal") }.reduce(0, +)
            let stat = workout.statistics.first { $0.quantityType == HKType.activeEnergy }
            XCTAssertEqual(stat?.sum?.value ?? 0, energy, accuracy: 1e-6)
            XCTAssertNotNil(workout.statistics.first { $0.quantityType == HKType.heartRate }?.average)
            XCTAssertTrue(workout.events.contains { $0.type == .segment })
            XCTAssertTrue(WorkoutActivityTypes.all.contains(workout.activityType))
        }
        XCTAssertEqual(all.last?.end, all.map(\.end).max())
    }

    func testPeripheralsReportInTheirUnits() throws {
        let bp = try samples("cuff", days: 5)
        XCTAssertFalse(bp.isEmpty)
        for c in bp {
            let children = try XCTUnwrap(c.correlationObjects)
            let sys = try XCTUnwrap(children.first { $0.type == HKType.systolic }?.quantity?.value)
            let dia = try XCTUnwrap(children.first { $0.type == HKType.diastolic }?.quantity?.value)
            XCTAssertGreaterThan(sys, dia)
            XCTAssertTrue((90...170).contains(sys))
        }
        let mass = try samples("scale", days: 5).filter { $0.type == HKType.bodyMass }
        XCTAssertTrue(mass.allSatisfy { $0.quantity?.unit == "lb" && (130...170).contains($0.quantity!.value) })
        let temps = try samples("thermometer", days: 10)
        XCTAssertTrue(temps.allSatisfy { $0.quantity?.unit == "degF" && (95...104).contains($0.quantity!.value) })
    }
}
