/// What a credential is.
public enum Role: Int32, Sendable, Hashable {
    case app = 1, owner = 2, serverOperator = 3
}

/// Share (write) or read.
public enum AccessDirection: Int32, Sendable, Hashable, CaseIterable {
    case share = 1, read = 2
}

/// The owner's decision state for one app, type and direction.
public enum PermissionState: Int32, Sendable, Hashable {
    case pending = 1, granted = 2, denied = 3
}

/// HKAuthorizationStatus (share status only).
public enum AuthorizationStatus: Int32, Sendable, Hashable {
    case notDetermined = 1, sharingDenied = 2, sharingAuthorized = 3
}

/// HKAuthorizationRequestStatus.
public enum AuthorizationRequestStatus: Int32, Sendable, Hashable {
    case shouldRequest = 1, unnecessary = 2
}

/// HKUpdateFrequency for observers.
public enum UpdateFrequency: Int32, Sendable, Hashable {
    case immediate = 1, hourly = 2, daily = 3, weekly = 4

    /// Coalescing period in microseconds (0 = none).
    public var periodMicros: Int64 {
        switch self {
        case .immediate: 0
        case .hourly: 3_600_000_000
        case .daily: 86_400_000_000
        case .weekly: 604_800_000_000
        }
    }
}

/// What happened to one saved object.
public enum SaveOutcome: Int32, Sendable, Hashable {
    /// Newly stored.
    case stored = 1
    /// Identical object already stored (a retry).
    case alreadyStored = 2
    /// Stored, replacing a lower sync version.
    case replaced = 3
    /// Not stored: an equal or higher sync version exists.
    case keptExisting = 4
}

/// Why a call ended without an error.
public enum EndReason: Int32, Sendable, Hashable {
    case cancelled = 1, shutdown = 2, slowConsumer = 3
    /// An observer left three events in a row unacknowledged (docs/semantics.md §6.9).
    case unacknowledged = 4
}
