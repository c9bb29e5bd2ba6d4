import Foundation
import HealthModel
import HealthProto

/// protobuf-c structs → samples, with every body kind.
extension WireDecode {
    /// `depth` counts enclosing correlations, bounded so hostile nesting cannot exhaust the stack.
    static func sample(_ s: Healthstore__V1__Sample, depth: Int = 0) throws(HealthError) -> Sample {
        let uuid = try CRead.uuid(s.uuid, "uuid")
        let type = try CRead.sampleType(s.type, "type")
        return Sample(uuid: uuid,
                      type: type.name,
                      start: s.start_time,
                      end: s.end_time,
                      metadata: try metadata(s.metadata, s.n_metadata),
                      device: try optionalDevice(s.device),
                      sourceRevision: try optionalSourceRevision(s.source_revision),
                      creationTime: s.creation_time == 0 ? nil : s.creation_time,
                      body: try sampleBody(s, depth: depth),
                      discreteSeries: try discreteSeries(s),
                      catalogType: type.type)
    }

    /// The discrete series summary of a quantity body: all three quantities, or none.
    private static func discreteSeries(_ s: Healthstore__V1__Sample) throws(HealthError) -> DiscreteSeriesSummary? {
        guard s.body_case == HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY, let body = s.quantity?.pointee,
              body.minimum != nil || body.maximum != nil || body.most_recent != nil else { return nil }
        return DiscreteSeriesSummary(minimum: try requiredQuantity(body.minimum, "quantity.minimum"),
                                     maximum: try requiredQuantity(body.maximum, "quantity.maximum"),
                                     mostRecent: try requiredQuantity(body.most_recent, "quantity.most_recent"),
                                     mostRecentStart: body.most_recent_start_time, mostRecentEnd: body.most_recent_end_time)
    }

    /// Quantity series points (InsertSeriesData.quantities, SeriesDataPage.quantities).
    static func quantitySeriesPoints(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<Healthstore__V1__QuantitySeriesPoint>?>?,
                                     _ count: Int, _ field: String) throws(HealthError) -> [QuantitySeriesPoint] {
        var index = 0
        return try CRead.list(pointers, count, field) { (p: Healthstore__V1__QuantitySeriesPoint) throws(HealthError) -> QuantitySeriesPoint in
            defer { index += 1 }
            return QuantitySeriesPoint(try requiredQuantity(p.quantity, "\(field)[\(index)].quantity"), start: p.start_time, end: p.end_time)
        }
    }

    /// A list of samples. An error names the offending sample: a top-level one (`depth` 0) by its
    /// object index, with the message saying where ("objects[3].uuid must be …"); a correlation's
    /// child by its path in the field ("correlation.objects[1].uuid").
    static func samples(_ pointers: UnsafeMutablePointer<UnsafeMutablePointer<Healthstore__V1__Sample>?>?, _ count: Int,
                        _ field: String, depth: Int = 0) throws(HealthError) -> [Sample] {
        guard count > 0 else { return [] }
        guard let pointers else { throw CRead.malformed("\(field) has \(count) entries but no storage", field: field) }
        var result = [Sample]()
        result.reserveCapacity(count)
        for i in 0..<count {
            do throws(HealthError) {
                guard let element = pointers[i] else { throw CRead.malformed("sample is missing", field: "sample") }
                result.append(try sample(element.pointee, depth: depth))
            } catch {
                throw depth == 0 ? error.inObject(i, of: field) : error.under("\(field)[\(i)]")
            }
        }
        return result
    }

    private static func sampleBody(_ s: Healthstore__V1__Sample, depth: Int) throws(HealthError) -> SampleBody {
        switch s.body_case {
        case HEALTHSTORE__V1__SAMPLE__BODY_QUANTITY:
            let body = try CRead.required(s.quantity, "quantity")
            return .quantity(try requiredQuantity(body.quantity, "quantity.quantity"), count: body.count == 0 ? 1 : body.count)
        case HEALTHSTORE__V1__SAMPLE__BODY_CATEGORY:
            return .category(try CRead.required(s.category, "category").value)
        case HEALTHSTORE__V1__SAMPLE__BODY_CORRELATION:
            guard depth < WireLimits.maxNestingDepth else {
                throw CRead.malformed("correlation.objects nests correlations deeper than \(WireLimits.maxNestingDepth)",
                                      field: "correlation.objects")
            }
            let body = try CRead.required(s.correlation, "correlation")
            return .correlation(try samples(body.objects, body.n_objects, "correlation.objects", depth: depth + 1))
        case HEALTHSTORE__V1__SAMPLE__BODY_WORKOUT:
            return .workout(try workout(try CRead.required(s.workout, "workout")))
        case HEALTHSTORE__V1__SAMPLE__BODY_ELECTROCARDIOGRAM:
            return .electrocardiogram(try electrocardiogram(try CRead.required(s.electrocardiogram, "electrocardiogram")))
        case HEALTHSTORE__V1__SAMPLE__BODY_AUDIOGRAM:
            return .audiogram(try audiogram(try CRead.required(s.audiogram, "audiogram")))
        case HEALTHSTORE__V1__SAMPLE__BODY_STATE_OF_MIND:
            return .stateOfMind(try stateOfMind(try CRead.required(s.state_of_mind, "state_of_mind")))
        case HEALTHSTORE__V1__SAMPLE__BODY_SCORED_ASSESSMENT:
            return .scoredAssessment(try scoredAssessment(try CRead.required(s.scored_assessment, "scored_assessment")))
        case HEALTHSTORE__V1__SAMPLE__BODY_SERIES:
            return .series(count: try CRead.required(s.series, "series").count)
        default:
            throw CRead.malformed("body is not set: a sample needs a quantity, category, correlation, workout, electrocardiogram, "
                + "audiogram, state_of_mind or scored_assessment body", field: "body")
        }
    }

    static func workout(_ w: Healthstore__V1__WorkoutBody) throws(HealthError) -> Workout {
        Workout(activityType: w.activity_type,
                duration: w.duration == 0 ? nil : w.duration,
                events: try CRead.list(w.events, w.n_events, "workout.events", workoutEvent),
                activities: try CRead.list(w.activities, w.n_activities, "workout.activities", workoutActivity),
                statistics: try CRead.list(w.statistics, w.n_statistics, "workout.statistics", workoutStatistic),
                associatedSampleUUIDs: try CRead.uuids(w.associated_sample_uuids, w.n_associated_sample_uuids,
                                                       "workout.associated_sample_uuids"))
    }

    static func workoutEvent(_ e: Healthstore__V1__WorkoutEvent) throws(HealthError) -> WorkoutEvent {
        WorkoutEvent(type: try CRead.enumValue(e.type.rawValue, "workout.events.type"),
                     start: e.start_time, end: e.end_time,
                     metadata: try metadata(e.metadata, e.n_metadata))
    }

    static func workoutStatistic(_ s: Healthstore__V1__WorkoutStatistic) throws(HealthError) -> WorkoutStatistic {
        WorkoutStatistic(quantityType: try CRead.typeName(s.quantity_type, "workout.statistics.quantity_type"),
                         sum: try optionalQuantity(s.sum, "workout.statistics.sum"),
                         average: try optionalQuantity(s.average, "workout.statistics.average"),
                         minimum: try optionalQuantity(s.minimum, "workout.statistics.minimum"),
                         maximum: try optionalQuantity(s.maximum, "workout.statistics.maximum"))
    }

    static func workoutActivity(_ a: Healthstore__V1__WorkoutActivity) throws(HealthError) -> WorkoutActivity {
        WorkoutActivity(uuid: try CRead.uuid(a.uuid, "workout.activities.uuid"),
                        activityType: a.activity_type,
                        start: a.start_time, end: a.end_time,
                        metadata: try metadata(a.metadata, a.n_metadata),
                        events: try CRead.list(a.events, a.n_events, "workout.activities.events", workoutEvent),
                        statistics: try CRead.list(a.statistics, a.n_statistics, "workout.activities.statistics", workoutStatistic))
    }
}
