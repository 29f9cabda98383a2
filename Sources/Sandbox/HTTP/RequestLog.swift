import Foundation

/// An append-only NDJSON file with one line per API request the sandbox answers, so a
/// benchmark can count what a client read per rate-limit scope and window.
actor RequestLog {
    private let file: FileHandle
    private let path: String
    private let windowSeconds: Int
    private let encoder: JSONEncoder
    private var failureReported = false

    /// Opens `path` for appending (created when missing); throws when it cannot be written.
    init(path: String, windowSeconds: Int) throws {
        let url = URL(fileURLWithPath: path)
        let handle: FileHandle
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            handle = try FileHandle(forWritingTo: url)
            try handle.seekToEnd()
        } catch {
            throw RequestLogError(path: path, underlying: error)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.file = handle
        self.path = path
        self.windowSeconds = max(1, windowSeconds)
        self.encoder = encoder
    }

    /// Appends one line. A failed write (disk full, file removed) is reported once on standard
    /// error and otherwise ignored: the log must never take the sandbox down.
    func append(
        at time: Date, client: String, method: String, path requestPath: String, scope: (name: String, kind: EndpointKind)?, status: Int
    ) {
        let seconds = Int(time.timeIntervalSince1970)
        let line = RequestLogLine(
            time: time.formatted(Self.timeFormat), window: seconds - seconds % windowSeconds, client: client,
            method: method, path: requestPath, scope: scope?.name, kind: scope?.kind, status: status)
        do {
            var bytes = try encoder.encode(line)
            bytes.append(0x0A)
            try file.write(contentsOf: bytes)
        } catch {
            guard !failureReported else { return }
            failureReported = true
            FileHandle.standardError.write(Data("sandbox: cannot append to the request log \(self.path); lines may be missing from here on.\n".utf8))
        }
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
}

/// One line of the request log, as written.
struct RequestLogLine: Codable, Sendable, Equatable {
    /// When the request arrived, ISO 8601 in UTC with milliseconds.
    let time: String
    /// The start of the epoch-aligned rate-limit window it fell in, in seconds.
    let window: Int
    /// The rate-limit identity (the first `X-Forwarded-For` address, else the peer's).
    let client: String
    let method: String
    /// The path with its query.
    let path: String
    /// The real backend's rate-limit scope, or nil for a path no endpoint answers.
    let scope: String?
    /// Which budget the scope draws from; nil with `scope`.
    let kind: EndpointKind?
    let status: Int

    private enum CodingKeys: String, CodingKey {
        case time, window, client, method, path, scope, kind, status
    }

    // Written by hand so a missing scope is `null` rather than an absent key: every line has every field.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(window, forKey: .window)
        try container.encode(client, forKey: .client)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encode(scope, forKey: .scope)
        try container.encode(kind, forKey: .kind)
        try container.encode(status, forKey: .status)
    }
}

/// The request log could not be opened: a start-up error that names the file.
public struct RequestLogError: Error, CustomStringConvertible {
    public let path: String
    public let underlying: any Error

    public var description: String {
        "Cannot write the request log \(path): \(underlying.localizedDescription) Choose a writable file with --request-log (SANDBOX_REQUEST_LOG)."
    }
}
