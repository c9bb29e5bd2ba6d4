import HealthModel

/// What became of one object of an import.
public enum ImportOutcome: Sendable {
    case stored, alreadyPresent
    /// Not saved: the store holds an equal or higher sync version.
    case keptExisting
    /// The store refused it (or its whole batch, when the error names no object).
    case refused(HealthError)
}

/// Saves an import's objects in atomic batches with a few in flight, so the store saves one while
/// the next travel and the input is read on. An object the store refuses costs that object, not its
/// batch: the rest is saved again without it. Every object's outcome is told to `observe` (with its
/// batch and its place there), in the order the batches were submitted.
public struct BatchSaver {
    /// One object to save and the line of the input it came from.
    public typealias Item = (line: Int, sample: Sample)

    /// Objects to save in one atomic call and the line of the input each came from, kept apart so
    /// the samples go to the store as they are rather than copied out of pairs (a tenth of a JSON
    /// import's time went to copying samples).
    public struct Batch: Sendable {
        public private(set) var lines: [Int] = []
        public private(set) var samples: [Sample] = []

        public init() {}

        public var count: Int { samples.count }
        public var isEmpty: Bool { samples.isEmpty }

        /// The object at `index` and its line.
        public subscript(index: Int) -> Item { (lines[index], samples[index]) }

        public mutating func append(line: Int, _ sample: Sample) {
            lines.append(line)
            samples.append(sample)
        }

        /// Empties the batch, keeping its room for the next.
        public mutating func removeAll() {
            lines.removeAll(keepingCapacity: true)
            samples.removeAll(keepingCapacity: true)
        }
    }

    /// Told the outcome of the object at `index` of `batch`.
    public typealias Observe = (_ batch: Batch, _ index: Int, _ outcome: ImportOutcome) -> Void

    private let destination: any ImportDestination
    private let maxInFlight: Int
    private let observe: Observe
    /// Saves sent and not yet answered, oldest first.
    private var inFlight: [(batch: Batch, save: Task<[SaveOutcome], any Error>)] = []

    public init(destination: any ImportDestination, maxInFlight: Int = 3, observe: @escaping Observe) {
        self.destination = destination
        self.maxInFlight = max(1, maxInFlight)
        self.observe = observe
    }

    /// Sends `batch`, first waiting for the oldest save when enough are in flight. A store that is
    /// unavailable (or a transport error) is thrown: what was answered before stays saved.
    public mutating func submit(_ batch: Batch) async throws {
        guard !batch.isEmpty else { return }
        let (destination, samples) = (destination, batch.samples)
        inFlight.append((batch, Task { try await destination.save(samples) }))
        if inFlight.count >= maxInFlight { try await settleOldest() }
    }

    /// Waits for every save sent.
    public mutating func settleAll() async throws {
        while !inFlight.isEmpty { try await settleOldest() }
    }

    private mutating func settleOldest() async throws {
        let (batch, save) = inFlight.removeFirst()
        try await settle(batch, sent: save)
    }

    /// Tells the outcome of `batch`, saved atomically by `sent`; when the store names the offending
    /// object, that one is told and the rest saved again without it: the objects before it as one
    /// save (they passed), the objects after it in two halves. Halving keeps a batch the store refuses
    /// object by object (an export imported again into the store it came from) at about two saves per
    /// object instead of one save of the whole rest per object.
    private func settle(_ batch: Batch, sent: Task<[SaveOutcome], any Error>) async throws {
        var parts: [Range<Int>] = [0..<batch.count]
        var sent: Task<[SaveOutcome], any Error>? = sent
        while !parts.isEmpty {
            let part = parts.removeFirst()
            let attempt = sent
            sent = nil
            do {
                let outcomes = if let attempt { try await attempt.value } else { try await destination.save(Array(batch.samples[part])) }
                for (index, outcome) in zip(part, outcomes) {
                    switch outcome {
                    case .stored, .replaced: observe(batch, index, .stored)
                    case .alreadyStored: observe(batch, index, .alreadyPresent)
                    case .keptExisting: observe(batch, index, .keptExisting)
                    }
                }
            } catch let error as HealthError where error.code != .unavailable {
                guard let index = error.objectIndex, part.contains(part.lowerBound + index) else {
                    for index in part { observe(batch, index, .refused(error)) }
                    continue
                }
                let offender = part.lowerBound + index
                observe(batch, offender, Self.isPresentElsewhere(error) ? .alreadyPresent : .refused(error))
                let middle = (offender + 1 + part.upperBound) / 2
                let retries = [part.lowerBound..<offender, (offender + 1)..<middle, middle..<part.upperBound].filter { !$0.isEmpty }
                parts.insert(contentsOf: retries, at: 0)
            }
        }
    }

    /// The object's UUID is stored already under another source: re-importing an export into the
    /// store it came from (the owner's import saves as the Health app) meets every object this way.
    public static func isPresentElsewhere(_ error: HealthError) -> Bool {
        error.code == .invalidArgument && error.field?.hasSuffix("uuid") == true
            && error.message.contains("already used by an object saved by another source")
    }

    /// A message with what differs from object to object (UUIDs, numbers, quoted values) taken out,
    /// so refusals for one cause count together.
    public static func reason(_ message: String) -> String {
        message.replacing(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, with: "<uuid>")
            .replacing(/'[^']*'/, with: "'…'")
            .replacing(/-?\d+(\.\d+)?/, with: "N")
    }
}
