import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import ConsoleServer

/// Slow clients (slow-loris) cannot hold the console's connections: an idle timeout between
/// requests and for a head that never finishes, and a deadline for reading a whole request.
@Suite("Slow clients are cut off", .timeLimit(.minutes(3)))
struct SlowClientTests {
    /// Runs the console (no backend needed) with the given limits, on a loopback port.
    private func withConsole(idleTimeout: TimeInterval, readTimeout: TimeInterval, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ConsoleFixture.configuration(backendURL: try #require(URL(string: "http://127.0.0.1:1/api/v1/")), directory: directory)
        configuration.connectionIdleTimeout = idleTimeout
        configuration.requestReadTimeout = readTimeout
        let app = try await buildConsoleApplication(configuration: configuration, logger: ConsoleFixture.quietLogger)
        try await app.test(.live) { client in
            try await body(try #require(client.port))
        }
    }

    private static let postHead =
        "POST /sign-in HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"

    @Test("a request head that never finishes is closed after the idle timeout, however it trickles")
    func headNeverFinishes() async throws {
        try await withConsole(idleTimeout: 3, readTimeout: 30) { port in
            // act: a header line, one byte every 200 ms, never ending
            let outcome = try await SlowClient.run(
                port: port, start: "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", trickle: String(repeating: "a", count: 100),
                limit: .seconds(15))

            // check
            let closedAfter = try #require(outcome.closedAfter, "still open after 15 s")
            // Well before the 30-s read deadline: the idle timeout closed it. Under the whole suite's
            // load on two cores the 3-s timer was seen to fire 7 s late, so the bound leaves room.
            #expect(closedAfter < .seconds(14), "closed after \(closedAfter), limit 3 s")
            #expect(outcome.received.isEmpty, "no answer to a request that never arrived")
        }
    }

    @Test("a body that stops (7 of 100 bytes) is closed after the idle timeout")
    func bodyStops() async throws {
        try await withConsole(idleTimeout: 3, readTimeout: 30) { port in
            // act
            let outcome = try await SlowClient.run(port: port, start: Self.postHead + "login=a", limit: .seconds(15))

            // check
            let closedAfter = try #require(outcome.closedAfter, "still open after 15 s")
            // Well before the 30-s read deadline: the idle timeout closed it. Under the whole suite's
            // load on two cores the 3-s timer was seen to fire 7 s late, so the bound leaves room.
            #expect(closedAfter < .seconds(14), "closed after \(closedAfter), limit 3 s")
        }
    }

    @Test("a body trickled one byte at a time is closed at the request read deadline, though never idle")
    func bodyTrickles() async throws {
        // setup: the idle timeout alone would never fire: a byte comes every 200 ms
        try await withConsole(idleTimeout: 30, readTimeout: 2) { port in
            // act: 7 bytes, then the other 93 over 18 s
            let outcome = try await SlowClient.run(
                port: port, start: Self.postHead + "login=a", trickle: String(repeating: "x", count: 93), limit: .seconds(15))

            // check
            let closedAfter = try #require(outcome.closedAfter, "still open after 15 s")
            #expect(closedAfter < .seconds(10), "closed after \(closedAfter), deadline 2 s")
        }
    }

    @Test("a keep-alive connection left idle after its answer is closed after the idle timeout")
    func idleBetweenRequests() async throws {
        try await withConsole(idleTimeout: 3, readTimeout: 30) { port in
            // act
            let outcome = try await SlowClient.run(port: port, start: "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", limit: .seconds(15))

            // check
            #expect(
                outcome.received.hasPrefix("HTTP/1.1 200"),
                "answered first: \(outcome.received.prefix(40)) (closed after \(String(describing: outcome.closedAfter)))")
            let closedAfter = try #require(outcome.closedAfter, "still open after 15 s")
            // Well before the 30-s read deadline: the idle timeout closed it. Under the whole suite's
            // load on two cores the 3-s timer was seen to fire 7 s late, so the bound leaves room.
            #expect(closedAfter < .seconds(14), "closed after \(closedAfter), limit 3 s")
        }
    }

    @Test("a client that sends its request within the deadline, if slowly, is answered and not cut off")
    func steadyClientIsAnswered() async throws {
        try await withConsole(idleTimeout: 20, readTimeout: 8) { port in
            // act: a 10-byte body over 1 s; watched for 7 s, within the 8-s deadline, since a
            // machine busy with every suite at once has taken over 3 s to answer
            let head = "POST /sign-in HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10\r\n\r\n"
            let outcome = try await SlowClient.run(
                port: port, start: head, trickle: "0123456789", interval: .milliseconds(100), limit: .seconds(7))

            // check: answered (a sign-in without its form token is refused), and the connection is still open
            #expect(outcome.received.hasPrefix("HTTP/1.1 "), "got: \(outcome.received.prefix(40))")
            #expect(outcome.closedAfter == nil, "closed after \(String(describing: outcome.closedAfter))")
        }
    }
}
