import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 46, item 6: what a change means for the open streams is read once per process, not
/// once per stream; each stream writes it for its own viewer from memory.
@Suite("Live batches: one read per change for every open stream")
struct LiveBatchesTests {
    @Test("200 streams woken by one claim, all asking at once, cost one read of the change; a newer change is read again")
    func oneReadForEveryStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let before = try await store.lastLiveChangeID()
        _ = try await store.claim(.init(kind: .library, key: "corner"), holderId: 7, holderUsername: "maria", now: Date(), duration: 600)
        let newest = try await store.lastLiveChangeID()
        let batches = LiveBatches(store: store)
        let schedule = SendSchedule(limits: nil)

        // act: every stream asks at once
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for viewer in 0..<200 {
                group.addTask {
                    let batch = try await batches.batch(after: before, newest: newest, schedule: schedule)
                    return (viewer, try batch.text(viewer: 100 + viewer, now: Date()))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }

        // check
        #expect(await batches.reads == 1)
        #expect(texts.count == 200 && texts.values.allSatisfy { $0.contains("event: item") })
        _ = try await store.releaseClaim(.init(kind: .library, key: "corner"), holderId: 7, holderUsername: "maria", now: Date())
        let newer = try await store.lastLiveChangeID()
        _ = try await batches.batch(after: before, newest: newer, schedule: schedule)
        #expect(await batches.reads == 2, "a newer change is read again")
    }
}

/// Issue 46, item 6: one person's open streams are limited across every process on the database.
@Suite("Live streams per person, across processes", .serialized, .timeLimit(.minutes(3)))
struct LiveStreamsPerPersonTests {
    @Test(
        "with three streams a person, staff's third across two consoles is the last: a fourth on either is refused in words; one closed frees its place"
    )
    func limitAcrossProcesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let serves = try await ConsoleBinary.startServes(
                2, backend: "http://127.0.0.1:\(sandbox.port)", directory: directory, environment: ["CONSOLE_LIVE_STREAMS_PER_PERSON": "3"])
            defer { serves.processes.forEach { $0.stop() } }
            var sessions: [String] = []
            for base in serves.bases {
                sessions.append(try #require(try await RawForms.signIn(base: base, login: "staff", password: SeedAccounts.demoStaffPassword)))
            }
            let ports = try serves.bases.map { try #require(Int($0.split(separator: ":").last ?? "")) }
            func open(_ index: Int) async throws -> EventStreamReader {
                try await EventStreamReader.open(port: ports[index], cookies: ["bc_session": String(sessions[index].dropFirst("bc_session=".count))])
            }
            // act: two streams through the first console, one through the second
            let held = [try await open(0), try await open(0), try await open(1)]
            #expect(held.allSatisfy { $0.status == 200 })
            let fourth = try await open(1)
            let fifth = try await open(0)
            // check
            #expect(fourth.status == 429 && fifth.status == 429)
            await fourth.close()
            await fifth.close()
            let refusal = try await rawHTTP(.GET, serves.bases[1] + "/events", headers: [("Cookie", sessions[1]), ("Accept", "text/event-stream")])
            #expect(refusal.text.contains("Too many of your open pages follow changes, in every browser together."))
            // one page closes: its place is free again, on the other console too
            await held[0].close()
            var reopened: EventStreamReader?
            for _ in 0..<50 where reopened == nil {
                let attempt = try await open(1)
                if attempt.status == 200 { reopened = attempt } else { await attempt.close(); try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(reopened != nil, "the closed stream's place was freed")
            await reopened?.close()
            for stream in held.dropFirst() { await stream.close() }
        }
    }
}
