import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing

@testable import BookCornersAPI

@Suite("BackendClient against a misbehaving backend", .timeLimit(.minutes(3)))
struct BackendClientFaultTests {
    // 30 s: with every suite running at once on two cores, a scripted answer has taken over 5 s.
    private func client(_ url: URL, timeout: Duration = .seconds(30), attempts: Int = 3) -> BackendClient {
        BackendClient(
            configuration: .init(
                baseURL: url, requestTimeout: timeout,
                readRetry: RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
    }

    private func credentials(_ access: String = "valid") -> StaffCredentials {
        StaffCredentials(accessToken: access, refreshToken: "refresh-token")
    }

    @Test("a connection dropped mid-answer is retried, then reported as unavailable")
    func droppedConnection() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/summary": { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json", .contentLength: "500"],
                    body: .init { writer in
                        try await writer.write(ByteBuffer(string: #"{"pending_libraries_count": 1,"#))
                        throw CancellationError()
                    })
            }
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                await #expect(throws: BackendError.unavailable(.connectionFailed)) { try await client.summary(credentials()) }
                #expect(await log.count("libraries/moderation/summary") == 3)
            }
        }
    }

    @Test("an answer slower than the timeout is a timeout, after the bounded retries")
    func slowAnswer() async throws {
        let log = CallLog()
        let done = TestDone()
        let routes: [String: Script] = [
            "libraries/moderation/summary": { _, _ in
                // Answers only after the test has its result (or after 90 s), so a slow
                // machine cannot blur "gave up on its own" with "got the late answer".
                let until = ContinuousClock.now + .seconds(90)
                while await !done.isDone, ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(50)) }
                return FaultServer.json(.ok, FaultServer.summary)
            }
        ]
        try await FaultServer.run(routes, log: log) { url in
            // A timeout long enough that a busy test machine still connects within it.
            try await BackendClient.closing(client(url, timeout: .seconds(1), attempts: 2)) { client in
                let started = ContinuousClock.now
                await #expect(throws: BackendError.unavailable(.timedOut)) { try await client.summary(credentials()) }
                #expect(ContinuousClock.now - started < .seconds(45), "two bounded attempts of 1 s, not the server's 90 s")
                await done.set()
                #expect(await log.count("libraries/moderation/summary") == 2)
            }
        }
    }

    @Test("503 then 200: a read is retried and succeeds")
    func retryAfter503() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/summary": { call, _ in
                call == 1 ? FaultServer.json(.serviceUnavailable, "<html>busy</html>", contentType: "text/html") : FaultServer.json(.ok, FaultServer.summary)
            }
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                let summary = try await client.summary(credentials())
                #expect(summary.totalPending == 6)
                #expect(await log.count("libraries/moderation/summary") == 2)
            }
        }
    }

    @Test("a PATCH that meets a 503 is not retried")
    func patchNotRetried() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/reports/7": { _, _ in FaultServer.json(.serviceUnavailable, #"{"message": "down", "details": null}"#) }
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                await #expect(throws: BackendError.unavailable(.serverError(status: 503))) {
                    try await client.setReportStatus(id: 7, to: .resolved, credentials: credentials())
                }
                #expect(await log.count("libraries/moderation/reports/7") == 1)
            }
        }
    }

    @Test("429 with retry_after, and without it (the next 300-second boundary); never retried")
    func rateLimited() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/summary": { _, _ in
                FaultServer.json(.tooManyRequests, #"{"message": "Too many requests. Please try again later.", "details": {"retry_after": 145}}"#)
            },
            "auth/login": { _, _ in
                FaultServer.json(.tooManyRequests, #"{"message": "Too many login attempts. Please try again later.", "details": null}"#)
            },
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                await #expect(throws: BackendError.rateLimited(retryAfterSeconds: 145)) { try await client.summary(credentials()) }
                do {
                    _ = try await client.signIn(username: "staff", password: "x")
                    Issue.record("sign-in should be rate limited")
                } catch {
                    guard case .rateLimited(let seconds)? = error as? BackendError else { Issue.record("\(error)"); return }
                    let expected = BackendError.secondsToNextWindow()
                    #expect(abs(seconds - expected) <= 2)
                }
                #expect(await log.count("libraries/moderation/summary") == 1)
                #expect(await log.count("auth/login") == 1)
            }
        }
    }

    @Test("an HTML 404 (wrong path) is reported as a non-JSON answer, not as 'not found'")
    func htmlNotFound() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/some-slug": { _, _ in
                FaultServer.json(.notFound, "<!DOCTYPE html><title>Page not found</title>", contentType: "text/html; charset=utf-8")
            }
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                await #expect(throws: BackendError.unavailable(.notJSON(status: 404))) {
                    try await client.library(slug: "some-slug", credentials: credentials())
                }
                #expect(await log.count("libraries/moderation/some-slug") == 1)
            }
        }
    }

    @Test("401 then a successful refresh: the call is retried once with the new token")
    func refreshThenRetry() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "auth/me": { _, request in
                request.headers[.authorization] == "Bearer fresh"
                    ? FaultServer.json(.ok, FaultServer.me)
                    : FaultServer.json(.unauthorized, #"{"message": "{'detail': ErrorDetail(...)}", "details": null}"#, contentType: "application/json")
            },
            "auth/refresh": { _, _ in FaultServer.json(.ok, #"{"access": "fresh"}"#) },
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                let stored = TokenBox()
                let credentials = StaffCredentials(accessToken: "expired", refreshToken: "r") { await stored.set($0) }
                let account = try await client.me(credentials)
                #expect(account.isStaff)
                #expect(await log.count("auth/me") == 2)
                #expect(await log.count("auth/refresh") == 1)
                #expect(await credentials.accessToken == "fresh")
                #expect(await stored.value == "fresh", "the owner hears of the new token")
            }
        }
    }

    @Test("401 with a failing refresh is sessionExpired, without a second try")
    func failingRefresh() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "auth/me": { _, _ in FaultServer.json(.unauthorized, #"{"message": "Unauthorized", "details": null}"#, contentType: "application/json") },
            "auth/refresh": { _, _ in
                FaultServer.json(.unauthorized, #"{"message": "Invalid or expired refresh token.", "details": null}"#, contentType: "application/json")
            },
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                await #expect(throws: BackendError.sessionExpired) { try await client.me(credentials("expired")) }
                #expect(await log.count("auth/me") == 1)
                #expect(await log.count("auth/refresh") == 1)
            }
        }
    }

    @Test("twenty concurrent calls with an expired token cause exactly one refresh")
    func singleFlightRefresh() async throws {
        let log = CallLog()
        let routes: [String: Script] = [
            "libraries/moderation/summary": { _, request in
                request.headers[.authorization] == "Bearer fresh"
                    ? FaultServer.json(.ok, FaultServer.summary)
                    : FaultServer.json(.unauthorized, #"{"message": "Unauthorized", "details": null}"#, contentType: "application/json")
            },
            "auth/refresh": { _, _ in
                try await Task.sleep(for: .milliseconds(200))
                return FaultServer.json(.ok, #"{"access": "fresh"}"#)
            },
        ]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                let credentials = credentials("expired")
                let results = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<20 { group.addTask { try await client.summary(credentials).totalPending } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(results == Array(repeating: 6, count: 20))
                #expect(await log.count("auth/refresh") == 1)
            }
        }
    }

    @Test("every call says who it is, carries a request id, and asks caches to stay out")
    func headers() async throws {
        let log = CallLog()
        let routes: [String: Script] = ["libraries/moderation/summary": { _, _ in FaultServer.json(.ok, FaultServer.summary) }]
        try await FaultServer.run(routes, log: log) { url in
            try await BackendClient.closing(client(url)) { client in
                _ = try await client.summary(credentials(), context: CallContext(requestID: "req-123", forwardedFor: "198.51.100.7"))
                let headers = await log.lastHeaders
                #expect(headers["user-agent"]?.hasPrefix("BookCornersModerationConsole/") == true)
                #expect(headers["x-request-id"] == "req-123")
                #expect(headers["x-forwarded-for"] == "198.51.100.7")
                #expect(headers["cache-control"]?.contains("no-cache") == true)
                #expect(headers["authorization"] == "Bearer valid")
            }
        }
    }

    @Test("a backend that is not there is unavailable, quickly; a write it refused is known not to have applied")
    func connectionRefused() async throws {
        // A timeout far above what a loaded test machine adds, so the bound below tells
        // "refused at once" from "waited for the timeout" even when every test runs at once.
        try await BackendClient.closing(client(try #require(URL(string: "http://127.0.0.1:1/api/v1/")), timeout: .seconds(90))) { client in
            let elapsed = await ContinuousClock().measure {
                await #expect(throws: BackendError.unavailable(.connectionRefused)) { try await client.statistics() }
            }
            #expect(elapsed < .seconds(45), "three refused attempts, not a wait for the 90-second timeout; took \(elapsed)")
            await #expect(throws: BackendError.unavailable(.connectionRefused)) {
                try await client.setReportStatus(id: 7, to: .resolved, credentials: credentials())
            }
            // A refused connection never carried the PATCH: the runner must not credit a later re-check to it.
            #expect(!BackendError.unavailable(.connectionRefused).writeMayHaveApplied)
            #expect(BackendError.unavailable(.connectionFailed).writeMayHaveApplied, "a dropped connection may have carried it")
        }
    }

    @Test("page bounds are checked before anything is sent")
    func pageBounds() {
        #expect(throws: PageError.sizeOutOfRange(51)) { try Page(number: 1, size: 51) }
        #expect(throws: PageError.numberOutOfRange(0)) { try Page(number: 0, size: 20) }
        #expect(Page(clampingNumber: 5000, size: 0) == (try? Page(number: 1000, size: 1)))
    }

    @Test("relative media paths resolve against the backend's origin; absolute ones stay when their origin is allowed")
    func mediaURLs() async throws {
        let configuration = BackendClientConfiguration(
            baseURL: try #require(URL(string: "https://bookcorners.org/api/v1/")), extraMediaOrigins: ["https://cdn.example.com"])
        try await BackendClient.closing(BackendClient(configuration: configuration)) { client in
            #expect(client.mediaURL("/media/a.jpg")?.absoluteString == "https://bookcorners.org/media/a.jpg")
            #expect(client.mediaURL("https://bookcorners.org/media/c.jpg")?.absoluteString == "https://bookcorners.org/media/c.jpg")
            #expect(client.mediaURL("https://cdn.example.com/b.jpg")?.absoluteString == "https://cdn.example.com/b.jpg")
            #expect(client.mediaURL("") == nil)
            #expect(client.mediaOrigin == "https://bookcorners.org")
            #expect(client.mediaPolicy.sourceList == "https://bookcorners.org https://cdn.example.com")
        }
    }

    @Test(
        "a media address that is not http(s) on an allowed origin is refused",
        arguments: [
            "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", "data:image/png;base64,AAAA",
            "//evil.example/x.png", "http://evil.example/tracker.png", "https://evil.example/x.png", "http://bookcorners.org/media/a.jpg",
            "https://bookcorners.org:8443/media/a.jpg", "https://bookcorners.org@evil.example/x.png", "/\\evil.example/x.png",
            "\\\\evil.example/x.png", "ftp://bookcorners.org/a.jpg", " /media/a.jpg", "/media/a b.jpg", "/media/a\u{0}.jpg",
            "vbscript:msgbox(1)", "https://evil.example\\@bookcorners.org/x.png",
        ])
    func mediaURLsRefused(_ path: String) async throws {
        try await BackendClient.closing(BackendClient(configuration: .init(baseURL: try #require(URL(string: "https://bookcorners.org/api/v1/"))))) { client in
            #expect(client.mediaURL(path) == nil)
            #expect(client.mediaPolicy.accepted(path) == "")
        }
    }
}

/// Holds the token the credentials' owner was told about.
actor TokenBox {
    private(set) var value: String?
    func set(_ token: String) { value = token }
}
