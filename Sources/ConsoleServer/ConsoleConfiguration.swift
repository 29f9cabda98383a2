import Foundation

/// Everything `console serve` can be told, already parsed and checked.
public struct ConsoleConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The console's own SQLite file (sessions, actions, audit, outbox).
    public var databasePath: String
    /// The Book Corners API base URL, ending in `/api/v1/`.
    public var backendURL: URL

    public init(host: String, port: Int, databasePath: String, backendURL: URL) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.backendURL = backendURL
    }
}
