import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

/// Issue 46's second goal, over real HTTP against the sandbox and a real `console serve`: a
/// colleague made non-staff at Book Corners while signed in loses every access within 60 s.
@Suite("A colleague removed at Book Corners loses every access within a minute", .serialized, .timeLimit(.minutes(4)))
struct StaffRemovalTests {
    @Test(
        "jonas, signed in with a live stream open, a calendar feed and a decision waiting for the write budget, is made non-staff at Book Corners: within 60 s his stream closes, his feed answers 404, his pages lead to sign-in, and maria sees his decision held on the library's page, with its forms to decide it again"
    )
    func removedWhileSignedIn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // One write per window at Book Corners: jonas's second decision waits.
        let limits = RateLimitPolicy(windowSeconds: 300, reads: 10_000, writes: 1, logins: 100, refreshes: 100)
        try await SandboxFixture.run(rateLimits: limits) { sandbox in
            let serves = try await ConsoleBinary.startServes(1, backend: "http://127.0.0.1:\(sandbox.port)", directory: directory)
            defer { serves.processes.forEach { $0.stop() } }
            let base = serves.bases[0]
            let port = try #require(Int(base.split(separator: ":").last ?? ""))
            let jonas = try #require(try await RawForms.signIn(base: base, login: "jonas", password: SeedAccounts.demoStaffPassword))
            let maria = try #require(try await RawForms.signIn(base: base, login: "maria", password: SeedAccounts.demoStaffPassword))
            let token = try await sandbox.accessToken()
            let pending = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=2", token: token).jsonObject()
            let slugs = ((pending?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
            try #require(slugs.count == 2)
            let store = try ModerationStore(path: directory.path("console.sqlite"))

            // setup: one decision applied, the second waiting for Book Corners' write limit
            for slug in slugs { #expect(try await RawForms.approve(slug: slug, base: base, session: jonas).status == 303) }
            var waiting: ModerationAction?
            for _ in 0..<100 where waiting == nil {
                waiting = try await store.allActions().first { $0.targetKey == slugs[1] && $0.state == .waiting }
                if waiting == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            try #require(waiting != nil, "jonas's second decision waits")
            // his calendar feed (of the team's rotation), and his live stream
            try await store.putTeam(on: "Europe/Rome")
            let onCall = try await rawHTTP(.GET, base + "/on-call", headers: [("Cookie", jonas)])
            let made = try await rawHTTP(
                .POST, base + "/on-call/calendar-feed", headers: [("Cookie", jonas), ("Content-Type", "application/x-www-form-urlencoded")],
                body: RawForms.body([("csrf", RawForms.field("csrf", in: onCall.text) ?? "")]))
            let feedPath = try #require(made.text.firstMatch(of: #/(/calendar/[A-Za-z0-9_\-]+\.ics)/#).map { String($0.1) })
            #expect(try await rawHTTP(.GET, base + feedPath).status == 200)
            let sessionValue = String(jonas.dropFirst("bc_session=".count))
            let stream = try await EventStreamReader.open(port: port, cookies: ["bc_session": sessionValue])
            defer { Task { await stream.close() } }
            try #require(stream.status == 200)

            // act: an administrator makes jonas non-staff at Book Corners
            let removed = ContinuousClock.now
            let admin = try await rawHTTP(.POST, "http://127.0.0.1:\(sandbox.port)/sandbox/admin/users/jonas/staff?is_staff=false")
            try #require(admin.status == 200)

            // check: every access ends within 60 s of the removal
            let streamEnded = try await stream.ended(within: .seconds(65))
            #expect(streamEnded != nil, "his live stream was closed")
            var feedGone = false
            var pagesGone = false
            var heldSeen = false
            while ContinuousClock.now - removed < .seconds(62), !(feedGone && pagesGone && heldSeen) {
                feedGone = try await rawHTTP(.GET, base + feedPath).status == 404
                pagesGone = try await rawHTTP(.GET, base + "/", headers: [("Cookie", jonas)]).header("location")?.hasPrefix("/sign-in") == true
                let page = try await rawHTTP(.GET, base + "/libraries/\(slugs[1])", headers: [("Cookie", maria)])
                heldSeen =
                    page.text.contains("Approval by jonas held, not sent: Book Corners says jonas is no longer staff")
                    && page.text.contains("value=\"approve\"")
                if !(feedGone && pagesGone && heldSeen) { try await Task.sleep(for: .milliseconds(500)) }
            }
            let took = ContinuousClock.now - removed
            #expect(feedGone, "his calendar feed answers 404")
            #expect(pagesGone, "his pages lead to sign-in")
            #expect(heldSeen, "maria sees his decision held, and can decide the library again")
            #expect(took < .seconds(60), "all within a minute of the removal: \(took)")
            let waitingID = try #require(waiting?.id)
            let held = try #require(try await store.action(id: waitingID))
            #expect(held.state == .parked && held.isHeldForRemovedAuthor)
        }
    }
}
