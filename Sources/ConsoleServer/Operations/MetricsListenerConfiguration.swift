/// The address of the metrics listener (`--metrics-bind`, `--metrics-port`).
public struct MetricsListenerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 9464) {
        self.host = host
        self.port = port
    }
}
