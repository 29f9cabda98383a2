import CoreMetrics
import Prometheus

/// The process's metrics: swift-metrics, bootstrapped once per process with a Prometheus
/// registry, so Hummingbird's `MetricsMiddleware` and our own counters land in one place.
public enum ConsoleMetrics {
    /// The registry `/metrics` emits; touching it bootstraps swift-metrics (once).
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = PrometheusNames.sanitized
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Bootstraps swift-metrics before anything records (metrics made earlier would go nowhere).
    public static func bootstrap() {
        _ = registry
    }
}

/// Prometheus names for what swift-metrics users (Hummingbird among them) call their
/// metrics: `console_` families, `_total` counters, `_seconds` durations, short label names.
enum PrometheusNames {
    static func sanitized(_ name: String, _ labels: [(String, String)]) -> (String, [(String, String)]) {
        let renamedLabels = labels.map { (labelNames[$0.0] ?? cleaned($0.0), $0.1) }
        return (familyNames[name] ?? cleaned(name), renamedLabels)
    }

    /// Hummingbird's `MetricsMiddleware` names.
    private static let familyNames = [
        "hb.requests": "console_http_requests_total",
        "http.server.request.duration": "console_http_request_duration_seconds",
        "hb.request.errors": "console_http_request_errors_total",
        "http.server.active_requests": "console_http_active_requests",
    ]

    private static let labelNames = [
        "http.route": "route", "http.request.method": "method", "http.response.status_code": "status", "error.type": "status",
    ]

    /// Anything outside `[a-zA-Z0-9_]` becomes `_`.
    static func cleaned(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
    }
}
