import CoreMetrics
import Hummingbird

/// Counts and times every request by its matched route (the pattern, e.g. `/v1/dialogs/{id}`,
/// never the raw path, so ids do not become series), method and status:
/// `parley_http_requests_total` and `parley_http_request_duration_seconds`. Outside the error
/// middleware, so a refused request is counted with the status it was answered with.
/// (Hummingbird's `MetricsMiddleware` records through the process-wide `MetricsSystem` under
/// `hb.*` names; this one records into the server's own registry under Parley's names.)
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let factory: any MetricsFactory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, response.status, since: started)
            return response
        } catch {
            record(request, context, (error as? any HTTPResponseError)?.status ?? .internalServerError, since: started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, _ status: HTTPResponse.Status, since started: ContinuousClock.Instant) {
        // Hummingbird names a path no route matched `NotFound`.
        let route = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        let dimensions = [("route", route), ("method", request.method.rawValue),
                          ("status", String(status.code))]
        Counter(label: "parley_http_requests_total", dimensions: dimensions, factory: factory).increment()
        CoreMetrics.Timer(label: "parley_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            .record(ContinuousClock.now - started)
    }
}
