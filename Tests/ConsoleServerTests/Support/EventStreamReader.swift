import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// A client of the console's `/events` over a real socket: reads server-sent events as they
/// arrive, the way `EventSource` does, until it is closed.
final class EventStreamReader: Sendable {
    /// One event as `EventSource` hands it over.
    struct Event: Sendable, Equatable {
        let id: String
        let name: String
        let data: String
    }

    let status: Int
    let contentType: String
    private let events = Mutex<[Event]>([])
    private let reading = Mutex<Task<Void, Never>?>(nil)
    /// The console ended the stream (or the connection broke): no more events will come.
    private let endedByServer = Mutex(false)
    private let client: HTTPClient

    private init(status: Int, contentType: String, client: HTTPClient) {
        self.status = status
        self.contentType = contentType
        self.client = client
    }

    /// Opens `path` on the console at `port` with `cookies`; answers once the headers came.
    static func open(port: Int, path: String = "/events", cookies: [String: String], lastEventID: String? = nil) async throws -> EventStreamReader {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await client.execute(request, timeout: .seconds(120))
        let reader = EventStreamReader(
            status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type") ?? "", client: client)
        let task = Task {
            var pending = ""
            do {
                for try await buffer in response.body {
                    pending += String(buffer: buffer)
                    while let end = pending.range(of: "\n\n") {
                        let block = String(pending[..<end.lowerBound])
                        pending = String(pending[end.upperBound...])
                        if let event = Self.parse(block) { reader.events.withLock { $0.append(event) } }
                    }
                }
            } catch {
                // Closed by the test, or by the console: what was read stays.
            }
            if !Task.isCancelled { reader.endedByServer.withLock { $0 = true } }
        }
        reader.reading.withLock { $0 = task }
        return reader
    }

    /// The events read so far.
    var received: [Event] { events.withLock { $0 } }

    /// Waits until an event satisfying `match` has arrived, at most `timeout`; answers it and how long it took.
    func first(within timeout: Duration, where match: (Event) -> Bool) async throws -> (event: Event, after: Duration)? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if let event = received.first(where: match) { return (event, ContinuousClock.now - start) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits until the console has ended the stream, at most `timeout`; answers how long it took.
    func ended(within timeout: Duration) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if endedByServer.withLock({ $0 }) { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    func close() async {
        reading.withLock { $0?.cancel() }
        try? await client.shutdown()
    }

    /// One block of lines; comments (heartbeats) and `retry:` alone are not events.
    private static func parse(_ block: String) -> Event? {
        var (id, name, data) = ("", "message", [String]())
        var hasData = false
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { continue }
            let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
            let value = parts.count > 1 ? String(parts[1].drop { $0 == " " }) : ""
            switch parts.first {
            case "id": id = value
            case "event": name = value
            case "data":
                data.append(value)
                hasData = true
            default: break
            }
        }
        return hasData ? Event(id: id, name: name, data: data.joined(separator: "\n")) : nil
    }
}
