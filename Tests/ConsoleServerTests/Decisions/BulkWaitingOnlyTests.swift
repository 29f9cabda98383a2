import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Bulk decisions are for waiting libraries: a decided one is changed on its own page, which
/// shows who decided it and why, and asks before reversing it.
@Suite("Bulk work: waiting libraries only", .timeLimit(.minutes(3)))
struct BulkWaitingOnlyTests {
    @Test("the rejected view offers no tick boxes and no bulk bar; a bulk approval naming a rejected library is refused on the list, nothing recorded")
    func decidedAreNotBulked() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let rejected = try #require(try await store.oldestMirroredLibraries(status: .rejected, count: 1).first)
            let pendingList = try await browser.get("/libraries?status=pending")
            // act
            let rejectedList = try await browser.get("/libraries?status=rejected")
            let forced = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", try #require(pendingList.csrfToken)), ("key", "bulk-reversal"), ("decision", "approve"),
                    ("item", "\(rejected.slug)|rejected|<script>x</script>"), ("back", "/libraries?status=rejected"),
                ])
            // check
            #expect(pendingList.contains(#"name="item""#) && pendingList.contains(#"class="bulk-bar""#))
            #expect(!rejectedList.contains(#"name="item""#), "no tick boxes on decided rows")
            #expect(!rejectedList.contains(#"class="bulk-bar""#))
            #expect(forced.status == .unprocessableContent, "\(forced)")
            #expect(forced.contains("Only waiting libraries can be decided in bulk"))
            #expect(!forced.contains("<script>x</script>"))
            #expect(
                try await store.recentDecisions(
                    actorId: try #require(try store.staffMembers().first { $0.username == "staff" }?.id), kind: .library, since: .distantPast
                ).isEmpty)
        }
    }
}
