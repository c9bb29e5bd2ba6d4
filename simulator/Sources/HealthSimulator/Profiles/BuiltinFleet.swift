import Foundation

/// The default fleet, kept as the same JSON users write for `--profile`, so it doubles as an example
/// (`healthsim --print-profiles` prints it). Makers and products are fictional; their identity fields
/// have the shapes real ones have.
public enum BuiltinFleet {
    /// The default fleet decoded (the JSON is checked by the tests).
    public static var fleet: FleetProfile {
        // The literal is fixed and decoded by ProfileTests, so failure here is a programming error.
        try! ProfileLoader.decodeFleet(Data(json.utf8))
    }

    /// One person with a watch, a band from another maker, a phone relaying a scale, a blood-pressure
    /// cuff and a thermometer.
    public static let json = """
    {
      "people": [
        {"id": "ada", "timeZone": "America/New_York", "restingHeartRate": 58, "maxHeartRate": 185,
         "weightKg": 68.5, "bodyFat": 0.24, "strideMeters": 0.74, "bedtimeHour": 22.75, "wakeHour": 6.75,
         "systolic": 121, "diastolic": 78, "workoutProbability": 0.6}
      ],
      "devices": [
        {"id": "watch", "person": "ada",
         "source": {"bundleID": "com.orchard.health.watch", "name": "Ada's Orchard Watch", "version": "11.2",
                    "productType": "Watch7,1", "osVersion": "11.2.0"},
         "device": {"name": "Orchard Watch", "manufacturer": "Orchard Inc.", "model": "Watch",
                    "hardwareVersion": "Watch7,1", "softwareVersion": "11.2",
                    "localIdentifier": "4F1C9B2E-7A43-4C1D-9E0B-2D5A6C7B8E01"},
         "reads": ["HKQuantityTypeIdentifierBodyMass"],
         "signals": [
           {"kind": "heartRate", "everySeconds": 300, "workoutEverySeconds": 5, "unit": "count/min", "sensorLocation": 2},
           {"kind": "restingHeartRate", "unit": "count/min"},
           {"kind": "heartRateVariability", "everySeconds": 7200, "unit": "ms"},
           {"kind": "oxygenSaturation", "everySeconds": 3600, "unit": "%"},
           {"kind": "activeEnergy", "everySeconds": 600, "unit": "kcal"},
           {"kind": "steps", "everySeconds": 60},
           {"kind": "distance", "everySeconds": 60, "unit": "m"},
           {"kind": "sleep", "stages": true},
           {"kind": "workouts"},
           {"kind": "electrocardiogram", "probability": 0.15}
         ]},
        {"id": "band", "person": "ada",
         "source": {"bundleID": "com.pulsefit.app", "name": "PulseFit", "version": "4.8.1",
                    "productType": "iPhone16,2", "osVersion": "18.1.0"},
         "device": {"name": "PulseFit Charge", "manufacturer": "PulseFit Ltd.", "model": "Charge 5",
                    "hardwareVersion": "FB421", "firmwareVersion": "52.10.1", "softwareVersion": "4.8.1",
                    "localIdentifier": "9A7E3D10-55B2-4E8F-A1C3-6B0D2F4E9C12"},
         "signals": [
           {"kind": "heartRate", "everySeconds": 600, "workoutEverySeconds": 60, "unit": "count/min", "sensorLocation": 2},
           {"kind": "steps", "everySeconds": 900},
           {"kind": "distance", "everySeconds": 900, "unit": "km"},
           {"kind": "sleep", "stages": false}
         ]},
        {"id": "phone", "person": "ada", "carryProbability": 0.85,
         "source": {"bundleID": "com.orchard.health.7F3C2A10", "name": "Ada's Phone", "version": "18.1",
                    "productType": "iPhone16,2", "osVersion": "18.1.0"},
         "device": {"name": "Phone", "manufacturer": "Orchard Inc.", "model": "Phone",
                    "hardwareVersion": "iPhone16,2", "softwareVersion": "18.1",
                    "localIdentifier": "C2D8F6A4-1B3E-4F5A-8C7D-0E9F1A2B3C44"},
         "signals": [
           {"kind": "steps", "everySeconds": 420},
           {"kind": "distance", "everySeconds": 420, "unit": "m"},
           {"kind": "flightsClimbed"},
           {"kind": "stateOfMind"},
           {"kind": "assessments"}
         ]},
        {"id": "scale", "person": "ada", "relayedBy": "phone",
         "source": {"bundleID": "com.balanceco.health", "name": "Balance Health", "version": "6.3.0",
                    "productType": "iPhone16,2", "osVersion": "18.1.0"},
         "device": {"name": "Balance Body+", "manufacturer": "Balance Co.", "model": "WBS05",
                    "hardwareVersion": "WBS05", "firmwareVersion": "2.4.1",
                    "localIdentifier": "E1F2A3B4-C5D6-4E7F-8091-A2B3C4D5E666"},
         "signals": [
           {"kind": "bodyMass", "unit": "lb", "probability": 0.8},
           {"kind": "bodyFatPercentage", "unit": "%", "probability": 0.8}
         ]},
        {"id": "cuff", "person": "ada", "relayedBy": "phone",
         "source": {"bundleID": "com.cardiocare.bp", "name": "CardioCare", "version": "3.1.2",
                    "productType": "iPhone16,2", "osVersion": "18.1.0"},
         "device": {"name": "CardioCare BP Monitor", "manufacturer": "CardioCare Medical", "model": "BPM-7",
                    "hardwareVersion": "BPM7-B", "firmwareVersion": "1.9.0",
                    "localIdentifier": "0B1C2D3E-4F50-4617-A8B9-CADBECFD0E77",
                    "udiDeviceIdentifier": "00812345670029"},
         "signals": [
           {"kind": "bloodPressure", "unit": "mmHg", "probability": 0.7}
         ]},
        {"id": "thermometer", "person": "ada", "relayedBy": "phone",
         "source": {"bundleID": "com.thermoscan.app", "name": "ThermoScan", "version": "2.0.4",
                    "productType": "iPhone16,2", "osVersion": "18.1.0"},
         "device": {"name": "ThermoScan Ear", "manufacturer": "ThermoScan GmbH", "model": "IRT-6",
                    "hardwareVersion": "IRT6020", "firmwareVersion": "1.2",
                    "localIdentifier": "7D6C5B4A-3928-4716-9504-F3E2D1C0BA88",
                    "udiDeviceIdentifier": "00812345670036"},
         "signals": [
           {"kind": "bodyTemperature", "unit": "degF", "probability": 0.4, "sensorLocation": 3}
         ]}
      ]
    }
    """
}
