import HealthProto

/// The four generated `map<string, MetadataValue>` entry structs, so metadata maps are read and
/// built by one generic routine.
protocol CMetadataEntry {
    var key: UnsafeMutablePointer<CChar>! { get set }
    var value: UnsafeMutablePointer<Healthstore__V1__MetadataValue>! { get set }
    /// The generated `…__init` function.
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { get }
}

extension Healthstore__V1__Sample__MetadataEntry: CMetadataEntry {
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { healthstore__v1__sample__metadata_entry__init }
}

extension Healthstore__V1__WorkoutEvent__MetadataEntry: CMetadataEntry {
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { healthstore__v1__workout_event__metadata_entry__init }
}

extension Healthstore__V1__WorkoutActivity__MetadataEntry: CMetadataEntry {
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { healthstore__v1__workout_activity__metadata_entry__init }
}

extension Healthstore__V1__DeletedObject__MetadataEntry: CMetadataEntry {
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { healthstore__v1__deleted_object__metadata_entry__init }
}

extension Healthstore__V1__FinishSeries__MetadataEntry: CMetadataEntry {
    static var initialise: (UnsafeMutablePointer<Self>?) -> Void { healthstore__v1__finish_series__metadata_entry__init }
}
