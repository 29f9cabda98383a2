import CoreMetrics

/// The duration and failures of one periodic service's passes (`runner`, `outbox`,
/// `mirror`), as `console_pass_duration_seconds` and `console_pass_errors_total`.
struct PassMetrics: Sendable {
    let service: String

    /// Times `pass`, counts it as failed when it throws, and rethrows.
    func measure<T>(_ pass: () async throws -> T) async throws -> T {
        let started = ContinuousClock.now
        do {
            let value = try await pass()
            record(since: started, failed: false)
            return value
        } catch {
            record(since: started, failed: true)
            throw error
        }
    }

    private func record(since started: ContinuousClock.Instant, failed: Bool) {
        let elapsed = ContinuousClock.now - started
        CoreMetrics.Timer(label: "console_pass_duration_seconds", dimensions: [("service", service)])
            .recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        // Made on every pass, so the family shows 0 before the first failure.
        let errors = Counter(label: "console_pass_errors_total", dimensions: [("service", service)])
        if failed { errors.increment() }
    }
}
