/// The size of one unit symbol, in base units: grams, metres, seconds, kelvin, amperes, radians, and
/// one of each HealthKit scalar. Grams (not kilograms) are the mass base so that g, mg, lb and mol<M>
/// have exact scales.
struct UnitDefinition: Sendable, Hashable {
    /// Base units per one of this unit.
    let scale: Double
    /// Affine offset in this unit's own terms: base = (value + offset) × scale. Only degC and degF.
    let offset: Double
    let dimension: UnitDimension
    /// dBASPL: a logarithmic pressure level, converted by Pa = 10^(dB/20) × 2e-5.
    let isLogarithmic: Bool

    init(_ scale: Double, _ dimension: UnitDimension, offset: Double = 0, isLogarithmic: Bool = false) {
        self.scale = scale
        self.offset = offset
        self.dimension = dimension
        self.isLogarithmic = isLogarithmic
    }
}

/// HealthKit's unit symbol tables (docs/semantics.md §5.2, §5.3) with the exact legal definitions.
enum UnitTables {
    static let mass = UnitDimension([.mass: 1])
    static let length = UnitDimension([.length: 1])
    static let time = UnitDimension([.time: 1])
    static let volume = UnitDimension([.length: 3])
    static let energy = UnitDimension([.mass: 1, .length: 2, .time: -2])
    static let pressure = UnitDimension([.mass: 1, .length: -1, .time: -2])
    static let temperature = UnitDimension([.temperature: 1])
    static let angle = UnitDimension([.angle: 1])

    /// Grams per kilogram: SI-coherent derived units (Pa, J, W, V, S) are defined over kg.
    private static let kilogram = 1000.0
    static let pascal = kilogram
    static let litre = 1e-3
    static let joule = kilogram
    static let millimetreOfMercury = 133.322387415 * pascal
    static let pound = 453.59237
    /// Reference pressure of dBASPL, in pascals.
    static let soundPressureReference = 2e-5

    /// Metric prefixes (HKMetricPrefix); micro is "mc".
    static let prefixes: [String: Double] = [
        "p": 1e-12, "n": 1e-9, "mc": 1e-6, "m": 1e-3, "c": 1e-2, "d": 1e-1,
        "da": 1e1, "h": 1e2, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "f": 1e-15,
    ]

    /// Prefixable (SI) units. `l` is accepted and written back as `L`.
    static let prefixable: [String: UnitDefinition] = [
        "g": UnitDefinition(1, mass),
        "m": UnitDefinition(1, length),
        "L": UnitDefinition(litre, volume),
        "Pa": UnitDefinition(pascal, pressure),
        "s": UnitDefinition(1, time),
        "J": UnitDefinition(joule, energy),
        "K": UnitDefinition(1, temperature),
        "S": UnitDefinition(1 / kilogram, UnitDimension([.mass: -1, .length: -2, .time: 3, .current: 2])),
        "Hz": UnitDefinition(1, UnitDimension([.time: -1])),
        "V": UnitDefinition(kilogram, UnitDimension([.mass: 1, .length: 2, .time: -3, .current: -1])),
        "W": UnitDefinition(kilogram, UnitDimension([.mass: 1, .length: 2, .time: -3])),
        "rad": UnitDefinition(1, angle),
    ]

    /// Alternative spellings of prefixable symbols, mapped to the canonical one.
    static let prefixableAliases: [String: String] = ["l": "L"]

    /// Non-SI units: whole tokens that never take a prefix.
    static let nonSI: [String: UnitDefinition] = [
        "oz": UnitDefinition(28.349523125, mass),
        "lb": UnitDefinition(pound, mass),
        "st": UnitDefinition(14 * pound, mass),
        "in": UnitDefinition(0.0254, length),
        "ft": UnitDefinition(0.3048, length),
        "yd": UnitDefinition(0.9144, length),
        "mi": UnitDefinition(1609.344, length),
        "mmHg": UnitDefinition(millimetreOfMercury, pressure),
        "cmAq": UnitDefinition(98.0665 * pascal, pressure),
        "atm": UnitDefinition(101_325 * pascal, pressure),
        "inHg": UnitDefinition(25.4 * millimetreOfMercury, pressure),
        "dBASPL": UnitDefinition(pascal, pressure, isLogarithmic: true),
        "dBHL": UnitDefinition(1, UnitDimension([.hearingLevel: 1])),
        "fl_oz_us": UnitDefinition(0.0295735295625 * litre, volume),
        "fl_oz_imp": UnitDefinition(0.0284130625 * litre, volume),
        "pt_us": UnitDefinition(0.473176473 * litre, volume),
        "pt_imp": UnitDefinition(0.56826125 * litre, volume),
        "cup_us": UnitDefinition(0.2365882365 * litre, volume),
        "cup_imp": UnitDefinition(0.284130625 * litre, volume),
        "min": UnitDefinition(60, time),
        "hr": UnitDefinition(3600, time),
        "d": UnitDefinition(86_400, time),
        "cal": UnitDefinition(4.184 * joule, energy),
        "kcal": UnitDefinition(4184 * joule, energy),
        "Cal": UnitDefinition(4184 * joule, energy),
        "degC": UnitDefinition(1, temperature, offset: 273.15),
        "degF": UnitDefinition(1 / 1.8, temperature, offset: 459.67),
        "IU": UnitDefinition(1, UnitDimension([.pharmacology: 1])),
        "count": UnitDefinition(1, UnitDimension([.count: 1])),
        // Percent values are fractions (0.97 = 97 %), so "%" has scale 1 within its own dimension.
        "%": UnitDefinition(1, UnitDimension([.percent: 1])),
        "lx": UnitDefinition(1, UnitDimension([.illuminance: 1])),
        "deg": UnitDefinition(Double.pi / 180, angle),
        "appleEffortScore": UnitDefinition(1, UnitDimension([.effort: 1])),
    ]
}
