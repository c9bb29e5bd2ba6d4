/// How many samples of one type one source saved with one device (nil: samples without a device).
public struct SampleCount: Sendable, Hashable {
    public let type: String
    public let source: Source
    public let device: Device?
    public let count: UInt64

    public init(type: String, source: Source, device: Device?, count: UInt64) {
        self.type = type
        self.source = source
        self.device = device
        self.count = count
    }
}
