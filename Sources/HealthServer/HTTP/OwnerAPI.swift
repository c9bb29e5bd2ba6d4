import HealthModel
import HealthWire

/// The owner's JSON API (docs/http.md). Every endpoint is the binary protocol's owner call of the
/// same name, run through the dispatcher as the signed-in owner: the same access guard, the same
/// store calls, the same answers.
struct OwnerAPI {
    let dispatcher: Dispatcher
    let session: Session
    let loop: EventLoop

    /// Answers `request` at `/api/<path>`; nil when no endpoint has that path.
    func respond(_ request: HTTPRequest, path: [Substring]) async throws(HealthError) -> HTTPResponse? {
        let query = QueryParameters(request.query)
        switch (request.method, path.map(String.init)) {
        case ("GET", ["catalog"]):
            return .json(.object(["types": .array(TypeCatalog.all.filter(\.isSampleType).map(APIJSON.catalogEntry)),
                                  "workout_activity_types": APIJSON.names(WorkoutActivityTypes.names)]))
        case ("GET", ["overview"]):
            return try await overview(range: query.dateRange())
        case ("GET", ["samples"]):
            return try await samples(query)
        case ("GET", ["sources"]):
            guard case .sources(let sources) = try await answer(.querySources(type: try query.type(), predicate: query.dateRange())) else { break }
            return .json(.object(["sources": .array(sources.map(APIJSON.source))]))
        case ("GET", ["devices"]):
            guard case .devices(let devices) = try await answer(.queryDevices(type: try query.optionalType())) else { break }
            return .json(.object(["devices": .array(devices.map(SampleJSON.device))]))
        case ("GET", ["statistics"]):
            return try await statistics(query)
        case ("GET", ["statistics", "collection"]):
            return try await statisticsCollection(query)
        case ("GET", ["characteristics"]):
            guard case .characteristics(let values) = try await answer(.readCharacteristics) else { break }
            return .json(APIJSON.characteristics(values))
        case ("GET", ["authorization-requests"]):
            guard case .authorizationRequests(let requests) = try await answer(
                .listAuthorizationRequests(bundleID: query["bundle_id"], updates: false)) else { break }
            return .json(APIJSON.requests(requests))
        case ("GET", ["source-priority"]):
            return try await sourceOrder(.getSourcePriority(type: try query.type()))
        case ("PUT", ["source-priority"]):
            let body = try request.jsonBody()
            let type = try QueryParameters.resolveType(try body.string("type"))
            let bundleIDs = try body.array("bundle_ids").enumerated().map { index, item throws(HealthError) in
                guard case .string(let id) = item else { throw HealthError.invalid("bundle_ids[\(index)] must be a string", field: "bundle_ids") }
                return id
            }
            return try await sourceOrder(.setSourcePriority(type: type, bundleIDs: bundleIDs))
        case let (method, path) where path.first == "apps":
            return try await apps(method, Array(path.dropFirst()), request)
        default:
            return nil
        }
        throw unexpectedAnswer()
    }

    // MARK: endpoints

    private func overview(range: QueryPredicate?) async throws(HealthError) -> HTTPResponse {
        let types = TypeCatalog.all.filter(\.isSampleType).map(\.identifier)
        guard case .sampleCounts(let counts) = try await answer(.countSamples(types: types, predicate: range)) else { throw unexpectedAnswer() }
        var byType: [String: UInt64] = [:], bySource: [Source: UInt64] = [:], byDevice: [Device?: UInt64] = [:]
        for entry in counts {
            byType[entry.type, default: 0] += entry.count
            bySource[entry.source, default: 0] += entry.count
            byDevice[entry.device, default: 0] += entry.count
        }
        var typeRows: [JSON] = []
        for (type, count) in byType.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            let newest = SampleQuery(types: [type], predicate: range, sort: [SampleSortDescriptor(.endDate, descending: true)], limit: 1)
            var row = APIJSON.type(type)
            row["kind"] = .string(TypeCatalog.type(type)?.kind.rawValue ?? "")
            row["count"] = .int(Int64(count))
            row["latest"] = try await sampleList(.querySamples(newest)).first.map { SampleJSON.sample($0) } ?? .null
            typeRows.append(.object(row))
        }
        return .json(.object([
            "types": .array(typeRows),
            "sources": .array(bySource.sorted { $0.value > $1.value }.map { .object(["source": APIJSON.source($0.key), "count": .int(Int64($0.value))]) }),
            "devices": .array(byDevice.sorted { $0.value > $1.value }.map { .object(["device": APIJSON.device($0.key), "count": .int(Int64($0.value))]) }),
            "counts": .array(counts.map { .object(["type": .string($0.type), "source": APIJSON.source($0.source),
                                                    "device": APIJSON.device($0.device), "count": .int(Int64($0.count))]) }),
        ]))
    }

    private func samples(_ query: QueryParameters) async throws(HealthError) -> HTTPResponse {
        let limit = try query.integer("limit", default: 1000, in: 1...10_000)
        let descending = try query.choice("order", ["asc", "desc"], default: "asc") == "desc"
        let sampleQuery = SampleQuery(types: [try query.type()], predicate: try query.dateRange(),
                                      sort: [SampleSortDescriptor(.startDate, descending: descending)], limit: limit)
        return .json(.object(["samples": .array(try await sampleList(.querySamples(sampleQuery)).map { SampleJSON.sample($0) })]))
    }

    private func statistics(_ query: QueryParameters) async throws(HealthError) -> HTTPResponse {
        let (type, options, unit) = try statisticsRequest(query)
        let call = ClientCall.queryStatistics(StatisticsQuery(type: type.identifier, predicate: try query.dateRange(),
                                                              options: options, unit: unit))
        guard case .statistics(let result) = try await answer(call) else { throw unexpectedAnswer() }
        return .json(.object(["statistics": APIJSON.statistics(result)]))
    }

    /// The same query `healthctl stats --interval` makes: anchored at `from`, in the owner's zone.
    private func statisticsCollection(_ query: QueryParameters) async throws(HealthError) -> HTTPResponse {
        let (type, options, unit) = try statisticsRequest(query)
        let (from, to) = (try query.micros("from"), try query.micros("to"))
        guard let from, let to else { throw HealthError.invalid("a statistics collection needs from and to (microseconds)", field: from == nil ? "from" : "to") }
        let words = ["hour": "1h", "day": "1d", "week": "1w", "month": "1mo", "year": "1y"]
        let text = query["interval"] ?? "1d"
        guard let interval = IntervalComponents(text: words[text] ?? text) else {
            throw HealthError.invalid("interval '\(text)' is not hour, day, week, month, year or a count and unit like 15m, 6h, 1d, 1mo", field: "interval")
        }
        let collection = StatisticsCollectionQuery(type: type.identifier, options: options, unit: unit, anchor: from, interval: interval,
                                                   timeZone: query["tz"], from: from, to: to)
        var buckets: [JSON] = []
        for answer in try await dispatcher.answers(.queryStatisticsCollection(collection), session: session, loop: loop) {
            guard case .statisticsCollection(let page, _, _) = answer else { throw unexpectedAnswer() }
            buckets += page.map(APIJSON.statistics)
        }
        return .json(.object(["type": .string(type.identifier), "unit": .optional(unit ?? type.canonicalUnit), "buckets": .array(buckets)]))
    }

    private func apps(_ method: String, _ path: [String], _ request: HTTPRequest) async throws(HealthError) -> HTTPResponse? {
        switch (method, path) {
        case ("GET", []):
            guard case .listApps(let apps) = try await answer(.listApps) else { break }
            return .json(.object(["apps": .array(apps.map(APIJSON.app))]))
        case ("POST", []):
            let body = try request.jsonBody()
            let call = ClientCall.registerApp(bundleID: try body.string("bundle_id"), name: try body.string("name"))
            return try await credential(call, status: 201)
        case ("DELETE", let path) where path.count == 1:
            guard case .revokeApp(let closed) = try await answer(.revokeApp(bundleID: path[0])) else { break }
            return .json(.object(["connections_closed": .int(Int64(closed))]))
        case ("POST", let path) where path.count == 2 && path[1] == "token":
            return try await credential(.rotateAppToken(bundleID: path[0]), status: 200)
        case ("GET", let path) where path.count == 2 && path[1] == "permissions":
            guard case .listPermissions(let permissions) = try await answer(.listPermissions(bundleID: path[0])) else { break }
            return .json(.object(["permissions": .array(permissions.map(APIJSON.permission))]))
        case ("POST", let path) where path.count == 2 && path[1] == "decisions":
            let decisions = try Self.decisions(try request.jsonBody())
            guard case .decideAuthorization(let recorded) = try await answer(.decideAuthorization(bundleID: path[0], decisions: decisions)) else { break }
            return .json(.object(["recorded": .int(Int64(recorded))]))
        default:
            return nil
        }
        throw unexpectedAnswer()
    }

    private static func decisions(_ body: JSONFields) throws(HealthError) -> [AuthorizationDecision] {
        var decisions: [AuthorizationDecision] = []
        for (index, item) in try body.array("decisions").enumerated() {
            let fields = try JSONFields(item, path: body.elementPath("decisions", index))
            let direction: AccessDirection
            switch try fields.string("direction") {
            case "read": direction = .read
            case "share": direction = .share
            case let other: throw HealthError.invalid("direction '\(other)' is not read or share", field: "decisions.direction").at(index: index)
            }
            guard case .bool(let grant)? = fields.fields["grant"] else {
                throw HealthError.invalid("grant must be true or false", field: "decisions.grant").at(index: index)
            }
            decisions.append(AuthorizationDecision(type: try QueryParameters.resolveType(try fields.string("type")), direction: direction, grant: grant))
        }
        return decisions
    }

    // MARK: calls

    private func answer(_ call: ClientCall) async throws(HealthError) -> ServerResult {
        guard let last = try await dispatcher.answers(call, session: session, loop: loop).last else { throw unexpectedAnswer() }
        return last
    }

    /// A sample query's samples, every page.
    private func sampleList(_ call: ClientCall) async throws(HealthError) -> [Sample] {
        var samples: [Sample] = []
        for answer in try await dispatcher.answers(call, session: session, loop: loop) {
            guard case .samples(let page) = answer else { throw unexpectedAnswer() }
            samples += page
        }
        return samples
    }

    private func credential(_ call: ClientCall, status: Int) async throws(HealthError) -> HTTPResponse {
        guard case .appCredential(let app, let token) = try await answer(call) else { throw unexpectedAnswer() }
        return .json(.object(["app": APIJSON.source(app), "token": .string(token)]), status: status)
    }

    private func sourceOrder(_ call: ClientCall) async throws(HealthError) -> HTTPResponse {
        guard case .sourcePriority(let type, let sources) = try await answer(call) else { throw unexpectedAnswer() }
        return .json(APIJSON.sourceOrder(type: type, sources: sources))
    }

    private func statisticsRequest(_ query: QueryParameters) throws(HealthError) -> (HealthType, StatisticsOptions, String?) {
        let type = try TypeCatalog.resolve(try query.type())
        var options = StatisticsOptions.natural(for: type)
        if query["by_source"] == "1" || query["by_source"] == "true" { options.insert(.separateBySource) }
        return (type, options, query["unit"] ?? type.displayUnit)
    }

    private func unexpectedAnswer() -> HealthError {
        HealthError(.internalError, "the call answered with an unexpected result")
    }
}
