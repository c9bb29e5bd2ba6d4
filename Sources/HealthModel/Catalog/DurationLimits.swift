/// Maximum sample durations (docs/semantics.md §8.2). HealthKit maps internal type codes to limits and the
/// mapping is not public, so the per-type choices below are inferences, to confirm on a device with
/// `HKSampleType.maximumAllowedDuration`:
/// - 4 days for every quantity type and every category type not listed below (HealthKit's default;
///   sleep analysis is known to be 4 days).
/// - 14 days for codes 91, 92, 96, 97 and 157–171. In HealthKit's numbering those are cervical mucus
///   quality, ovulation test result, intermenstrual bleeding, sexual activity and the fifteen
///   cycle-tracking symptoms added together in iOS 13.6 (abdominal cramps … hot flashes, fifteen
///   consecutive codes). Symptoms added in iOS 14 keep the default.
/// - Unrestricted for menstrual flow (code 95) and, sharing its value set and logging flow, bleeding
///   during/after pregnancy; and for the undetermined-duration types (pregnancy, lactation,
///   contraceptive, docs/semantics.md §1.3).
/// - 365 days for the cycle-deviation detections (infrequent/irregular cycles, persistent
///   intermenstrual bleeding, prolonged periods), which summarise months of cycles; 8 days for the
///   headphone seven-day-limit event. These pick the closest limits HealthKit is known to use.
/// - No minimum duration: the two codes with a 0.001 s minimum are unidentified.
/// Correlations and workouts are unrestricted.
enum DurationLimits {
    static let day: Microseconds = 86_400_000_000
    static let standard: Microseconds = 4 * day
    static let reproductive: Microseconds = 14 * day
    static let weeklyEvent: Microseconds = 8 * day
    static let cycleDetection: Microseconds = 365 * day
}
