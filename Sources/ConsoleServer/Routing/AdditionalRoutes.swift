import Hummingbird

/// Routes a program built on the console adds beside the console's own: the page benchmark's
/// constant pages (`Benchmarks/PageBenchmark`). `console serve` and `console demo` add none,
/// so nothing a benchmark answers can ever be reached on a console.
public struct AdditionalRoutes: Sendable {
    /// Registers routes behind the same middleware, session check and CSRF check as every signed-in page.
    public var signedIn: @Sendable (RouterGroup<ConsoleRequestContext>) -> Void
    /// Registers routes answered to anyone, as `/healthz` is.
    public var open: @Sendable (Router<ConsoleRequestContext>) -> Void

    public init(
        signedIn: @escaping @Sendable (RouterGroup<ConsoleRequestContext>) -> Void,
        open: @escaping @Sendable (Router<ConsoleRequestContext>) -> Void
    ) {
        self.signedIn = signedIn
        self.open = open
    }
}
