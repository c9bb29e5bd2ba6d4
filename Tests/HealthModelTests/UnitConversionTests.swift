import XCTest
@testable import HealthModel

/// Conversions checked against the exact legal definitions (docs/semantics.md §5.3) to 1e-12 relative error.
final class UnitConversionTests: XCTestCase {
    private func assertConverts(_ value: Double, _ from: String, _ expected: Double, _ to: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try HealthUnit.parse(from).convert(value, to: HealthUnit.parse(to))
            let error = expected == 0 ? abs(result) : abs(result - expected) / abs(expected)
            XCTAssertLessThanOrEqual(error, 1e-12, "\(value) \(from) → \(result) \(to), expected \(expected)", file: file, line: line)
        } catch {
            XCTFail("\(value) \(from) → \(to): \(error)", file: file, line: line)
        }
    }

    func testConversionTable() {
        assertConverts(1, "lb", 0.45359237, "kg")
        assertConverts(10, "kg", 10 / 0.45359237, "lb")
        assertConverts(1, "st", 14 * 0.45359237, "kg")
        assertConverts(1, "oz", 28.349523125, "g")
        assertConverts(1, "mi", 1.609344, "km")
        assertConverts(5, "km", 5 / 1.609344, "mi")
        assertConverts(1, "ft", 12, "in")
        assertConverts(1, "yd", 0.9144, "m")
        assertConverts(98.6, "degF", 37, "degC")
        assertConverts(37, "degC", 98.6, "degF")
        assertConverts(-40, "degC", -40, "degF")
        assertConverts(212, "degF", 373.15, "K")
        assertConverts(300, "K", 300 - 273.15, "degC")
        assertConverts(0, "K", -459.67, "degF")
        assertConverts(1, "kcal", 4.184, "kJ")
        assertConverts(1, "Cal", 1, "kcal")
        assertConverts(1000, "cal", 1, "Cal")
        assertConverts(4184, "J", 1, "kcal")
        assertConverts(1, "mmHg", 0.133322387415, "kPa")
        assertConverts(1, "kPa", 1 / 0.133322387415, "mmHg")
        assertConverts(1, "mmHg", 133.322387415 / 98.0665, "cmAq")
        assertConverts(1, "cmAq", 0.0980665, "kPa")
        assertConverts(1, "atm", 101.325, "kPa")
        assertConverts(1, "inHg", 25.4, "mmHg")
        assertConverts(100, "mg/dL", 100 / 18.015588000005408, "mmol<180.15588000005408>/L")
        assertConverts(5.5, "mmol<180.15588000005408>/L", 5.5 * 18.015588000005408, "mg/dL")
        assertConverts(60, "count/min", 1, "count/s")
        assertConverts(1.5, "count/s", 90, "count/min")
        assertConverts(1, "ml/(kg*min)", 0.06, "L/(kg*hr)")
        assertConverts(35, "ml/kg*min", 35 * 0.06, "L/(kg*hr)")
        assertConverts(1, "fl_oz_us", 29.5735295625, "mL")
        assertConverts(1, "cup_us", 236.5882365, "mL")
        assertConverts(1, "pt_imp", 0.56826125, "L")
        assertConverts(2, "cup_imp", 0.56826125, "L")
        assertConverts(1, "d", 24, "hr")
        assertConverts(90, "min", 1.5, "hr")
        assertConverts(1, "kcal/(kg*hr)", 4184.0 / 3600, "W/kg")
        assertConverts(180, "deg", Double.pi, "rad")
        assertConverts(1, "L", 1e-3, "m^3")
        assertConverts(1, "mcS", 1e-6, "S")
        assertConverts(1, "degC/min", 1.8, "degF/min")
        assertConverts(0.97, "%", 0.97, "%")
    }

    func testDecibelsConvertLogarithmically() {
        assertConverts(0, "dBASPL", 2e-5, "Pa")
        assertConverts(94, "dBASPL", 2e-5 * pow(10, 94.0 / 20), "Pa")
        assertConverts(1, "Pa", 20 * log10(1 / 2e-5), "dBASPL")
        assertConverts(70, "dBASPL", 70, "dBASPL")
        XCTAssertThrowsError(try HealthUnit.parse("Pa").convert(0, to: HealthUnit.parse("dBASPL")))
    }

    func testIncompatibleConversionNamesBothUnits() {
        XCTAssertThrowsError(try HealthUnit.parse("kg").convert(1, to: HealthUnit.parse("m"))) { error in
            let health = error as? HealthError
            XCTAssertEqual(health?.code, .invalidArgument)
            XCTAssertEqual(health?.message, "unit \"kg\" (mass) is not compatible with \"m\" (length)")
        }
    }

    func testConvertingThereAndBackReturnsTheValue() throws {
        let groups: [[String]] = [
            ["g", "kg", "mg", "mcg", "lb", "oz", "st", "mmol<180.15588000005408>"],
            ["m", "km", "cm", "in", "ft", "yd", "mi"],
            ["s", "ms", "min", "hr", "d"],
            ["J", "kJ", "cal", "kcal", "Cal"],
            ["Pa", "kPa", "mmHg", "cmAq", "atm", "inHg"],
            ["K", "degC", "degF"],
            ["L", "mL", "dL", "fl_oz_us", "fl_oz_imp", "pt_us", "pt_imp", "cup_us", "cup_imp"],
            ["count/s", "count/min", "count/hr"],
            ["mL/(kg.min)", "L/(kg.hr)"],
        ]
        let values = [0.001, 0.5, 1, 37, 98.6, 1234.5678, 1e6]
        for group in groups {
            for from in group {
                for to in group {
                    let a = try HealthUnit.parse(from), b = try HealthUnit.parse(to)
                    for value in values {
                        let back = try b.convert(a.convert(value, to: b), to: a)
                        XCTAssertEqual(back, value, accuracy: abs(value) * 1e-12 + 1e-12, "\(value) \(from) ↔ \(to)")
                    }
                }
            }
        }
        let level = try HealthUnit.parse("dBASPL")
        for pressure in ["Pa", "mmHg", "atm"] {
            let linear = try HealthUnit.parse(pressure)
            for decibels in [0.0, 20, 70, 94.5, 140] {
                let back = try linear.convert(level.convert(decibels, to: linear), to: level)
                XCTAssertEqual(back, decibels, accuracy: 1e-12 * max(decibels, 1), "\(decibels) dBASPL ↔ \(pressure)")
            }
        }
    }

    func testQuantityHelpers() throws {
        let weight = Quantity(154, "lb")
        XCTAssertEqual(try weight.value(in: "kg"), 154 * 0.45359237, accuracy: 1e-12)
        XCTAssertEqual(try weight.converted(to: "kg").unit, "kg")
        XCTAssertTrue(weight.isCompatible(with: "g"))
        XCTAssertFalse(weight.isCompatible(with: "m"))
        XCTAssertFalse(weight.isCompatible(with: "not a unit"))
        XCTAssertThrowsError(try Quantity(1, "count").value(in: "%"))
    }
}
