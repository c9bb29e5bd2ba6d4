import XCTest
@testable import HealthModel

/// Parsing, canonical form and compatibility of HealthKit unit strings (docs/semantics.md §5).
final class UnitTests: XCTestCase {
    /// The valid examples of docs/semantics.md §5.5.
    static let documentedValid = [
        "count", "count/min", "kg", "g", "mg/dL", "mmol<180.15588000005408>/L", "m/s^2", "kg.m^-1.s^-2",
        "kg/m.s^2", "ml/(kg*min)", "ml/kg*min", "kcal/(kg*hr)", "L/min", "mcg", "mcS", "ms", "dBASPL", "%",
        "degF", "fl_oz_us", "km/hr", "mi/hr", "ft/s", "Cal", "IU", "W", "appleEffortScore",
    ]

    /// Every table symbol, prefixed forms and compounds; used by the property tests.
    static let manyUnits: [String] = {
        let prefixed = UnitTables.prefixes.keys.flatMap { p in ["g", "m", "L", "l", "Pa", "s", "J", "K", "S", "Hz", "V", "W", "rad"].map { p + $0 } }
        let compounds = ["mg/dL", "mmol<180.15588000005408>/L", "kcal/(hr.kg)", "mL/(kg.min)", "count/s", "m/s^2",
                         "kg.m^2/s^3", "(m.s)^-2", "mcmol<18>/(d.L)", "degC/min", "%/s", "lb.ft^2", "in^3",
                         "s^-1", "m.s/m", "dL/L", "IU/hr", "lx.min", "deg/s", "mmHg.cmAq^-1", "kJ/(g.degF)"]
        let symbols = ["kg", "mL", "min", "count", "degC", "mmHg", "mmol<180.15588000005408>", "ft", "%", "kcal", "mcS", "hr"]
        let generated = symbols.indices.flatMap { i in
            (-2...2).map { power in
                let a = symbols[i], b = symbols[(i * 5 + 3) % symbols.count], c = symbols[(i * 7 + 1) % symbols.count]
                return "(\(a)^\(power).\(b))^2/\(c).\(a)"
            }
        }
        return Array(UnitTables.nonSI.keys) + Array(UnitTables.prefixable.keys) + prefixed + compounds + documentedValid + generated
    }()

    func parse(_ s: String) throws -> HealthUnit { try HealthUnit.parse(s) }

    func testDocumentedValidExamplesParse() throws {
        for string in Self.documentedValid {
            XCTAssertNoThrow(try parse(string), string)
        }
    }

    func testDocumentedInvalidExamplesFailWithUnitError() {
        let invalid = ["", "kilogram", "ug", "µg", "kft", "kcount", "m//s", "kg/m/s", "m^1.5", "count/", "mol"]
        for string in invalid {
            XCTAssertThrowsError(try parse(string), string) { error in
                let health = error as? HealthError
                XCTAssertEqual(health?.code, .invalidArgument, string)
                XCTAssertEqual(health?.field, "unit", string)
                XCTAssertTrue(health?.message.hasPrefix("invalid unit string \"\(string)\"") ?? false, "\(string): \(String(describing: health))")
            }
        }
    }

    func testErrorMessagesNameTheRule() {
        func message(_ s: String) -> String {
            do { _ = try HealthUnit.parse(s); return "" } catch { return error.message }
        }
        XCTAssertEqual(message("kg/m/s"), "invalid unit string \"kg/m/s\": only one \"/\" is allowed")
        XCTAssertEqual(message("m//s"), "invalid unit string \"m//s\": only one \"/\" is allowed")
        XCTAssertTrue(message("m^1.5").contains("exponents must be integers"))
        XCTAssertTrue(message("kft").contains("prefix \"k\" cannot be applied to non-SI unit \"ft\""))
        XCTAssertTrue(message("kcount").contains("non-SI unit \"count\""))
        XCTAssertTrue(message("ug").contains("micro is written \"mc\""))
        XCTAssertTrue(message("µg").contains("micro is written \"mc\""))
        XCTAssertTrue(message("mol").contains("needs a molar mass"))
        XCTAssertTrue(message("count/").contains("missing unit after \"/\""))
        XCTAssertTrue(message("kilogram").contains("unknown unit \"kilogram\""))
        XCTAssertTrue(message("(m/s)").contains("not allowed inside parentheses"))
        XCTAssertTrue(message("(m.s").contains("missing \")\""))
        XCTAssertTrue(message("m^x").contains("integer exponent"))
        XCTAssertTrue(message("mol<-3>").contains("positive"))
        XCTAssertTrue(message("mol<18").contains("missing \">\""))
        XCTAssertTrue(message("k g").contains("spaces"))
        XCTAssertTrue(message("dBASPL/s").contains("logarithmic"))
        XCTAssertTrue(message("m^1000").contains("outside"))
    }

    func testMoreInvalidStrings() {
        for string in ["/s", "m/", "m.", ".m", "m..s", "m^", "m^-", "()", "(m", "m)", "kmin", "mcount", "k%", "kIU",
                       "xmol<18>", "mol<abc>", "mol<>", "mol<inf>", "u", "m^+2", "dBASPL^2", "M", "da", "mc", "µ"] {
            XCTAssertThrowsError(try parse(string), string)
        }
    }

    func testGrammarPrecedenceAndEquivalentSpellings() throws {
        XCTAssertEqual(try parse("kg/m.s^2"), try parse("kg/(m.s^2)"))
        XCTAssertEqual(try parse("kg/m.s^2"), try parse("kg.m^-1.s^-2"))
        XCTAssertEqual(try parse("ml/kg*min"), try parse("ml/(kg*min)"))
        XCTAssertEqual(try parse("ml/kg·min"), try parse("mL/(kg.min)"))
        XCTAssertEqual(try parse("(m.s)^2"), try parse("m^2.s^2"))
        XCTAssertEqual(try parse("((m))^-1"), try parse("m^-1"))
        XCTAssertEqual(try parse("kg/(m.s)^2"), try parse("kg.m^-2.s^-2"))
        XCTAssertEqual(try parse("m.m"), try parse("m^2"))
        XCTAssertEqual(try parse("l"), try parse("L"))
    }

    func testCanonicalStrings() throws {
        let expected = [
            "ml/(kg*min)": "mL/(kg.min)", "ml/kg*min": "mL/(kg.min)", "kcal/(kg*hr)": "kcal/(hr.kg)",
            "kg.m^-1.s^-2": "kg/(m.s^2)", "count/min": "count/min", "mmol<180.15588000005408>/L": "mmol<180.15588000005408>/L",
            "mol<18.0>": "mol<18>", "s^-1": "s^-1", "m.s/m": "m.s/m", "ml": "mL", "dl": "dL", "m^1": "m", "%": "%",
            "s^-1.m^-2": "m^-2.s^-1", "(m.s)^0": "m.s/(m.s)",
        ]
        for (input, canonical) in expected {
            XCTAssertEqual(try parse(input).unitString, canonical, input)
        }
    }

    func testLongestMatchTokenisation() throws {
        let dimensions: [String: UnitDimension] = [
            "m": UnitTables.length, "mm": UnitTables.length, "cm": UnitTables.length, "mi": UnitTables.length,
            "min": UnitTables.time, "ms": UnitTables.time, "d": UnitTables.time,
            "mg": UnitTables.mass, "mcg": UnitTables.mass, "mmol<18>": UnitTables.mass,
            "mL": UnitTables.volume, "ml": UnitTables.volume, "dL": UnitTables.volume,
            "mmHg": UnitTables.pressure, "cmAq": UnitTables.pressure, "kcal": UnitTables.energy,
        ]
        for (string, dimension) in dimensions {
            XCTAssertEqual(try parse(string).dimension, dimension, string)
        }
        XCTAssertEqual(try parse("mm").scale, 1e-3)
        XCTAssertEqual(try parse("min").scale, 60)
        XCTAssertEqual(try parse("mi").scale, 1609.344)
        XCTAssertEqual(try parse("ms").scale, 1e-3)
        XCTAssertEqual(try parse("d").scale, 86_400)
        XCTAssertEqual(try parse("dam").scale, 10)
        XCTAssertEqual(try parse("mcg").scale, 1e-6)
        XCTAssertEqual(try parse("mmol<18>").scale, 0.018, accuracy: 1e-15)
    }

    func testPrefixesOnlyOnPrefixableUnits() throws {
        for prefix in UnitTables.prefixes.keys {
            for unit in UnitTables.prefixable.keys { XCTAssertNoThrow(try parse(prefix + unit), prefix + unit) }
            XCTAssertNoThrow(try parse(prefix + "mol<18>"))
            for unit in ["ft", "count", "%", "IU", "lb", "appleEffortScore", "degC", "dBHL", "lx", "deg"] {
                XCTAssertThrowsError(try parse(prefix + unit), prefix + unit)
            }
        }
    }

    func testCountAndPercentAreDistinctIncompatibleScalars() throws {
        let count = try parse("count"), percent = try parse("%")
        XCTAssertFalse(count.isCompatible(with: percent))
        XCTAssertThrowsError(try count.convert(1, to: percent))
        XCTAssertEqual(percent.scale, 1)
        XCTAssertFalse(try parse("count/s").isCompatible(with: parse("Hz")))
        XCTAssertFalse(try parse("IU").isCompatible(with: parse("count")))
        XCTAssertFalse(try parse("appleEffortScore").isCompatible(with: parse("count")))
        XCTAssertFalse(try parse("dBHL").isCompatible(with: parse("dBASPL")))
    }

    func testDimensionsReduceToBaseUnits() throws {
        XCTAssertTrue(try parse("L").isCompatible(with: parse("m^3")))
        XCTAssertTrue(try parse("J").isCompatible(with: parse("kg.m^2/s^2")))
        XCTAssertTrue(try parse("Pa").isCompatible(with: parse("kg/m.s^2")))
        XCTAssertTrue(try parse("W").isCompatible(with: parse("J/s")))
        XCTAssertTrue(try parse("Hz").isCompatible(with: parse("s^-1")))
        XCTAssertTrue(try parse("mmol<180.15588000005408>").isCompatible(with: parse("g")))
        XCTAssertTrue(try parse("dBASPL").isCompatible(with: parse("Pa")))
        XCTAssertTrue(try parse("deg").isCompatible(with: parse("rad")))
        XCTAssertTrue(try parse("dL/L").isNull)
        XCTAssertEqual(try parse("mg/dL").dimension, UnitDimension([.mass: 1, .length: -3]))
        XCTAssertEqual(try parse("S").dimension.description, "mass^-1·length^-2·time^3·current^2")
    }

    func testOffsetOnlyForASingleTemperatureUnit() throws {
        XCTAssertEqual(try parse("degC").offset, 273.15)
        XCTAssertEqual(try parse("degF").offset, 459.67)
        XCTAssertEqual(try parse("degC/min").offset, 0)
        XCTAssertEqual(try parse("degF^2").offset, 0)
        XCTAssertEqual(try parse("K").offset, 0)
    }

    func testParseOfCanonicalStringReproducesTheUnit() throws {
        for string in Self.manyUnits {
            let unit = try parse(string)
            let again = try parse(unit.unitString)
            XCTAssertEqual(again, unit, string)
            XCTAssertEqual(again.unitString, unit.unitString, string)
            XCTAssertEqual(again.scale, unit.scale, string)
            XCTAssertEqual(again.offset, unit.offset, string)
            XCTAssertEqual(again.dimension, unit.dimension, string)
            XCTAssertEqual(again.isLogarithmic, unit.isLogarithmic, string)
        }
    }

    func testParsingIsCached() throws {
        let string = "mcmol<42.5>/(cm^2.hr)"
        let first = try parse(string)
        XCTAssertEqual(UnitCache.shared.unit(for: string), first)
        XCTAssertEqual(try parse(string), first)
    }

    func testConcurrentParsingIsSafe() {
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let unit = try? HealthUnit.parse("count/(\(i % 8 == 0 ? "min" : "s").kg^\(i % 5 + 1))")
            XCTAssertNotNil(unit)
        }
    }
}
