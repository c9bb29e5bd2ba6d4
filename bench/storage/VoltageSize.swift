import Foundation
import HealthModel
import HealthStorage

/// `--series` (continued): bytes per voltage measurement of ten 30-second ECGs at 512 Hz (153,600
/// measurements), packed, beside the 16 bytes a measurement takes as plain fields (8-byte offset, 8-byte µV).
func voltageSizeRun() async throws {
    let path = directory.appendingPathComponent("voltages.sqlite").path
    let store = try SQLiteStore.open(path: path)
    let (owner, _) = try await store.addOwner(name: "voltages")
    let revision = SourceRevision(source: Source(name: "Health", bundleID: "com.apple.Health"))
    var stored = 0
    for recording in 0..<10 {
        let rate = 55.0 + Double(recording) * 3
        let voltages = (0..<15_360).map { i -> VoltageMeasurement in
            let t = Double(i) / 512, phase = (t * rate / 60).truncatingRemainder(dividingBy: 1)
            let spike = 900 * exp(-pow((phase - 0.35) / 0.008, 2)), wave = 250 * exp(-pow((phase - 0.6) / 0.06, 2))
            return VoltageMeasurement(offset: Int64((t * 1e6).rounded()), microvolts: ((spike + wave + 30 * sin(t)) * 1e3).rounded() / 1e3)
        }
        let start = epochStart + Int64(recording) * 86_400_000_000
        let ecg = Sample(type: TypeCatalog.electrocardiogramType.identifier, start: start, end: start + 30_000_000,
                         body: .electrocardiogram(Electrocardiogram(classification: 1, samplingFrequency: Quantity(512, "Hz"), voltages: voltages)))
        _ = try await store.save(SaveBatch(owner: owner, revision: revision, defaultDevice: nil, objects: [ecg]))
        stored += voltages.count
    }
    let bytes = try await store.seriesPackedBytes()
    await store.close()
    print(String(format: "%d ECG voltages: %.1f bytes per measurement packed (plain fields: 16)", stored, Double(bytes) / Double(stored)))
}
