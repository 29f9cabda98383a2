import Foundation
import Logging
import Synchronization

/// `--log-format json`: one JSON object per line (time, level, label, message, then the
/// metadata: request id, staff, route, status, duration…), for log collectors. Values under
/// names that could hold a secret are never written, whoever logged them.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: LogLineOutput

    public init(label: String, output: LogLineOutput = .standardOutput, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.output = output
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        let merged = metadata.merging(metadataProvider?.get() ?? [:]) { $1 }.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged where !Self.isSecretName(key) {
            fields[Self.fieldName(key)] = value.description
        }
        fields["time"] = Self.time(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = event.message.description
        if event.level >= .warning { fields["source"] = "\(event.file):\(event.line)" }
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        output.write(data + Data("\n".utf8))
    }

    /// Hummingbird's `hb.request.id` reads as `request_id`; other names keep their spelling.
    private static func fieldName(_ key: String) -> String {
        key == "hb.request.id" || key == "request.id" ? "request_id" : key
    }

    /// Names that could carry a credential: dropped, not masked, so nothing of them leaks.
    static func isSecretName(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["password", "token", "secret", "cookie", "authorization", "csrf"].contains { lowered.contains($0) }
    }

    private static func time(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}

/// Where JSON log lines go: standard output by default, or anything that takes whole lines
/// (a test collects them). Lines are written whole, one at a time.
public final class LogLineOutput: Sendable {
    private let lock = Mutex(())
    private let sink: @Sendable (Data) -> Void

    public init(sink: @escaping @Sendable (Data) -> Void) {
        self.sink = sink
    }

    /// A line that cannot be written (the reader went away: EPIPE, a full non-blocking pipe) is
    /// dropped, as the text format drops it: logging never stops the console.
    public static let standardOutput = LogLineOutput { data in try? FileHandle.standardOutput.write(contentsOf: data) }

    func write(_ data: Data) {
        lock.withLock { _ in sink(data) }
    }
}
