import ServiceLifecycle

/// The loop of the console's periodic services: `tick` at once, then again every `interval`,
/// until a graceful shutdown (or the task's cancellation) ends the wait.
func repeatUntilShutdown(every interval: Duration, _ tick: @escaping @Sendable () async -> Void) async {
    await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            await tick()
            try? await Task.sleep(for: interval)
        }
    }
}
