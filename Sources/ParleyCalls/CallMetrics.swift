import CoreMetrics
import Foundation
import ParleyCore
import Tracing

/// The call figures, through swift-metrics: how long a call takes to set up, step by step from
/// the invite, and how calls end.
public struct CallMetrics: Sendable {
    /// The steps of call setup, each timed from the invite (`parley_call_setup_seconds{step}`).
    public enum Step: String, Sendable {
        /// `call.incoming` went out to the callee's devices (the caller's leg is ready).
        case incoming
        /// A device of the callee accepted: both legs paired.
        case accepted
        /// The first media packet went through the relay from one side to the other.
        case firstMedia = "first_media"
    }

    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Reports nothing.
    public static let none = CallMetrics(factory: NOOPMetricsHandler.instance)

    func setup(_ step: Step, took duration: Duration) {
        Timer(label: "parley_call_setup_seconds", dimensions: [("step", step.rawValue)], factory: factory).record(duration)
    }

    /// A call ended: `answered`, or the reason it ended without an answer (declined, missed, busy, …).
    func ended(_ outcome: String) {
        Counter(label: "parley_calls_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }
}

/// Where a call's setup started: the invite's time on the service's clock (for the histogram)
/// and on the tracer's, and the trace the invite's command runs in (for the step spans).
struct CallSetup: Sendable {
    let invited: Date
    let tracerStart = DefaultTracerClock.now
    let trace = ServiceContext.current ?? .topLevel
    var timed: Set<CallMetrics.Step> = []

    init(invited: Date) {
        self.invited = invited
    }
}
