import BookCornersAPI
import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 21, "Work is never lost": a session that ends while someone works keeps where they
/// were going and what they typed, says what was not sent, and is announced before it ends.
@Suite("Work is never lost when a session ends", .timeLimit(.minutes(3)))
struct SessionExpiryWorkTests {
    private static let hostileReason = String(repeating: "A long reason typed with care. ", count: 20) + #"<script>alert("x")</script> ‏עברית 📚"#

    /// Ends every session as the idle timeout would (the last request long ago), then waits out
    /// the session cache, so the next request meets an expired session.
    private func expireSessions(_ directory: TemporaryDirectory) async throws {
        try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
            try db.execute(sql: "UPDATE session SET lastSeenAt = ?", arguments: [Date().addingTimeInterval(-24 * 3_600)])
        }
        try await Task.sleep(for: .milliseconds(2_200))
    }

    private func pendingSlug(_ directory: TemporaryDirectory) async throws -> String {
        try #require(try await ModerationStore(path: directory.path("console.sqlite")).oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
    }

    /// Signs in, opens a waiting library's page and takes its reject form's key and token, then
    /// lets the session expire: what a moderator has in hand when they press Reject… too late.
    private func rejectFormAfterExpiry(_ browser: Browser, _ directory: TemporaryDirectory) async throws -> (slug: String, key: String, csrf: String) {
        try await browser.signIn()
        let slug = try await pendingSlug(directory)
        let library = try await browser.get("/libraries/\(slug)")
        let key = try #require(library.field("key", after: "class=\"reject-form\""))
        let csrf = try #require(library.csrfToken)
        try await expireSessions(directory)
        return (slug, key, csrf)
    }

    /// Signs in through the sign-in page at `location`, sending its hidden fields (`next`, `kept`) as a browser would.
    private func signIn(_ browser: Browser, at location: String) async throws -> Page {
        let form = try await browser.get(location)
        let fields = form.hiddenFields(ofFormPostingTo: "/sign-in")
        return try await browser.post("/sign-in", form: fields + [("login", SeedAccounts.demoStaffUsername), ("password", SeedAccounts.demoStaffPassword)])
    }

    @Test(
        "the page's live stream reconnecting after the session expired is refused (401) but leaves the session and its cookie: the decision sent next is still kept"
    )
    func streamLeavesTheExpiredSessionToTheDecision() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            let (slug, key, csrf) = try await rejectFormAfterExpiry(browser, directory)
            // act: the stream reconnects first, as it does in the background long before anyone clicks
            let stream = try await EventStreamReader.open(port: try #require(browser.client.port), cookies: browser.cookies)
            await stream.close()
            #expect(stream.status == 401)
            let rows = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? -1
            }
            #expect(rows == 1, "the stream did not end the session")
            let sent = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [("csrf", csrf), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", "Not a library."), ("confirmed", "1")])
            // check: kept for its owner, as without the stream
            #expect(sent.status == .seeOther)
            #expect(sent.location?.hasPrefix("/sign-in?expired=1&kept=") == true, "\(sent.location ?? "")")
        }
    }

    @Test(
        "a rejection confirmed after the session expired: nothing recorded, the sign-in page names it, and after sign-in the same form comes back filled in, sent with one click"
    )
    func rejectionKeptThroughSignIn() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the confirmation of a rejection with a long reason, then the session expires
            let (slug, key, csrf) = try await rejectFormAfterExpiry(browser, directory)

            // act: Reject on the confirmation page
            let sent = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", Self.hostileReason), ("confirmed", "1"),
                ])

            // check: sent to sign in, told what was not sent; nothing recorded, no password or token kept
            #expect(sent.status == .seeOther)
            let location = try #require(sent.location)
            #expect(location.hasPrefix("/sign-in?expired=1&kept="), "\(location)")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.auditEntries().allSatisfy { $0.targetKind == "session" }, "nothing decided")
            let kept = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchAll(db, sql: "SELECT fieldsJSON FROM keptForm")
            }
            #expect(kept.count == 1 && !kept[0].contains(csrf) && !kept[0].contains("csrf"), "the CSRF token is not kept")
            let name = try await #require(try store.mirroredLibrary(slug: slug)).name
            let signInPage = try await browser.get(location)
            #expect(signInPage.contains("Your rejection of"), "\(signInPage)")
            #expect(signInPage.contains("was not sent"))
            #expect(signInPage.contains(LibraryText.displayName(name).htmlEscapedForTest) || signInPage.contains(slug))

            // act: sign in (the page carries the key), then the kept form
            let signedIn = try await signIn(browser, at: location)
            #expect(signedIn.status == .seeOther)
            let unsentPath = try #require(signedIn.location)
            #expect(unsentPath.hasPrefix("/unsent/"), "\(unsentPath)")
            let unsent = try await browser.get(unsentPath)

            // check: the same decision, filled in, the reason escaped and editable, a fresh CSRF token
            #expect(unsent.status == .ok)
            #expect(unsent.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") && !unsent.contains("<script>alert"))
            #expect(unsent.contains(#"<textarea id="reason" name="reason""#))
            let fields = unsent.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide")
            #expect(fields.contains { $0 == ("confirmed", "1") } && fields.contains { $0 == ("key", key) })
            #expect(fields.first { $0.0 == "csrf" }?.1 != csrf, "the new session's token")

            // act: one click
            let done = try await browser.post("/libraries/\(slug)/decide", form: fields + [("reason", Self.hostileReason)])

            // check: recorded as a normal decision, once; the kept form is gone
            #expect(done.status == .seeOther, "\(done)")
            let recorded = try await store.recentDecisions(
                actorId: try #require(try store.latestSessionStaffID()), kind: .library, since: Date().addingTimeInterval(-600))
            #expect(recorded.count == 1 && recorded.first?.reason == Self.hostileReason.trimmingCharacters(in: .whitespaces))
            #expect(try await browser.get(unsentPath).status == .notFound, "shown once")
        }
    }

    @Test("a Reject… sent from the library's page after the session expired is asked about once: the kept form's Send records it, with no second confirmation")
    func rejectionFromThePageAsksOnce() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            let (slug, key, csrf) = try await rejectFormAfterExpiry(browser, directory)
            // act: Reject… with a reason typed on the library's page (the step before its confirmation)
            let sent = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", csrf), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", "Not a library.")])
            let signedIn = try await signIn(browser, at: try #require(sent.location))
            let unsentPath = try #require(signedIn.location)
            let unsent = try await browser.get(unsentPath)
            #expect(unsent.contains("Send your decision?") && unsent.contains("Not a library."), "\(unsent)")
            // act: Send
            let done = try await browser.post(
                "/libraries/\(slug)/decide", form: unsent.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide") + [("reason", "Not a library.")])
            // check: recorded now, not the rejection's confirmation page
            #expect(done.status == .seeOther, "a second confirmation: \(done)")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.auditEntries().contains { $0.action == "library.reject" && $0.targetSlug == slug && $0.reason == "Not a library." })
        }
    }

    @Test("opening a kept form (GET, HEAD, a link prefetch) uses nothing up; only the POST that sends it or discards it does")
    func keptFormSurvivesLooking() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: an approval kept after the session expired, then signed in again
            try await browser.signIn()
            let slug = try await pendingSlug(directory)
            let library = try await browser.get("/libraries/\(slug)")
            let fields = library.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide").filter { $0.0 != "decision" } + [("decision", "approve")]
            try await expireSessions(directory)
            let sent = try await browser.post("/libraries/\(slug)/decide", form: fields)
            let signedIn = try await signIn(browser, at: try #require(sent.location))
            let unsentPath = try #require(signedIn.location)
            #expect(unsentPath.hasPrefix("/unsent/"), "\(unsentPath)")

            // act: a prefetch (HEAD), two views
            let head = try await browser.head(unsentPath)
            let first = try await browser.get(unsentPath)
            let second = try await browser.get(unsentPath)

            // check: all three find it
            #expect(head.status == .ok)
            #expect(first.status == .ok && second.status == .ok, "\(second)")
            #expect(second.contains("Send your decision?"))

            // act: Do not send, a POST with the page's CSRF token
            let discard = second.hiddenFields(ofFormPostingTo: "\(unsentPath)/discard")
            #expect(discard.contains { $0.0 == "csrf" }, "Do not send is a form")
            let forged = try await browser.post("\(unsentPath)/discard", form: [])
            let stillThere = try await browser.get(unsentPath).status
            let discarded = try await browser.post("\(unsentPath)/discard", form: discard)

            // check: refused without the token; discarded with it, and nothing was decided
            #expect(forged.status == .forbidden)
            #expect(stillThere == .ok)
            #expect(discarded.status == .seeOther, "\(discarded)")
            #expect(try await browser.get(unsentPath).status == .notFound)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.recentDecisions(actorId: try #require(try store.latestSessionStaffID()), kind: .library, since: .distantPast).isEmpty)
        }
    }

    @Test("a page opened after the session expired: sign-in keeps the address (local paths only) and goes there")
    func linkKeepsItsDestination() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            try await expireSessions(directory)
            // act
            let opened = try await browser.get("/libraries?status=rejected&q=%3Cscript%3E")
            // check
            let location = try #require(opened.location)
            #expect(location.hasPrefix("/sign-in?expired=1&next="), "\(location)")
            let afterSignIn = try await signIn(browser, at: location)
            #expect(afterSignIn.location == "/libraries?status=rejected&q=%3Cscript%3E")
            // a `next` to another host leads home
            try await browser.post("/sign-out", form: [("csrf", try await browser.get("/").csrfToken ?? "")])
            let away = try await signIn(browser, at: "/sign-in?next=%2F%2Fevil.example%2F")
            #expect(away.location == "/")
        }
    }

    @Test("a decision sent with a cookie that names no session (pruned, or made up) keeps nothing, and sign-in says it was not saved")
    func unknownCookieKeepsNothing() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let slug = try await pendingSlug(directory)
            let library = try await browser.get("/libraries/\(slug)")
            let fields = library.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide")
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in try db.execute(sql: "DELETE FROM session") }
            try await Task.sleep(for: .milliseconds(2_200))
            let forger = Browser(client: browser.client, cookies: ["bc_session": "made-up"])
            // act
            let sent = try await browser.post("/libraries/\(slug)/decide", form: fields)
            let forged = try await forger.post("/libraries/\(slug)/decide", form: fields + [("reason", "planted")])
            // check: nothing stored for anyone to be handed later
            let location = try #require(sent.location)
            #expect(!location.contains("kept=") && location.contains("not_saved=1"), "\(location)")
            #expect(!(forged.location ?? "").contains("kept="), "\(forged)")
            #expect(try await browser.get(location).contains("the decision you sent was not saved"))
            let stored = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keptForm")
            }
            #expect(stored == 0)
        }
    }

    @Test("a kept form goes back to its owner only: another staff member's sign-in with its key finds nothing and spends nothing")
    func keptFormForItsOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let now = Date()
        try await store.keep(
            try KeptForm(id: "digest", path: "/libraries/x/decide", ownerStaffId: 7, fields: [.init(name: "decision", value: "approve")], now: now), now: now)
        // act / check
        #expect(try await store.keptForm(id: "digest", ownerStaffId: 8, now: now) == nil)
        #expect(try await !store.spendKeptForm(id: "digest", ownerStaffId: 8))
        #expect(try await store.keptForm(id: "digest", ownerStaffId: 7, now: now)?.fields == [.init(name: "decision", value: "approve")])
        #expect(try await store.keptForm(id: "digest", ownerStaffId: 7, now: now) != nil, "looking spends nothing")
        #expect(try await store.spendKeptForm(id: "digest", ownerStaffId: 7))
        #expect(try await store.keptForm(id: "digest", ownerStaffId: 7, now: now) == nil, "one use")
    }

    @Test("a bulk confirmation sent after the session expired comes back after sign-in listing its libraries, and is recorded once when sent")
    func bulkConfirmationKept() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: two libraries chosen and the confirmation page open, then the session expires
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let chosen = try await store.oldestMirroredLibraries(status: .pending, count: 2)
            let csrf = try #require(try await browser.get("/libraries").csrfToken)
            let review = try await browser.post(
                "/libraries/bulk",
                form: [("csrf", csrf), ("decision", "approve")] + chosen.map { ("item", "\($0.slug)|pending|\(Self.hostileReason.prefix(20))") })
            let fields = review.hiddenFields(ofFormPostingTo: "/libraries/bulk/confirm")
            try #require(fields.filter { $0.0 == "item" }.count == 2)
            try await expireSessions(directory)
            // act
            let sent = try await browser.post("/libraries/bulk/confirm", form: fields)
            let location = try #require(sent.location)
            let signInPage = try await browser.get(location)
            let signedIn = try await signIn(browser, at: location)
            let unsent = try await browser.get(try #require(signedIn.location))
            let done = try await browser.post("/libraries/bulk/confirm", form: unsent.hiddenFields(ofFormPostingTo: "/libraries/bulk/confirm"))
            // check
            #expect(signInPage.contains("Your approval of 2 libraries was not sent"), "\(signInPage)")
            let list = try #require(unsent.element(withClass: "confirm-list"), "\(unsent)")
            for library in chosen {
                // Named as the mirror knows them, not as the form said.
                #expect(list.contains("<li dir=\"auto\">\(ConsoleHTMLContentType.escape(LibraryText.displayName(library.name)))"), "\(list)")
            }
            #expect(done.status == .seeOther)
            let staffID = try await #require(try store.latestSessionStaffID())
            await #expect(Set(try store.recentDecisions(actorId: staffID, kind: .library, since: .distantPast).map(\.targetKey)) == Set(chosen.map(\.slug)))
        }
    }

    @Test("a decision form sent with no session cookie at all is not kept: nobody can fill the store")
    func noCookieNothingKept() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            let slug = try await { () async throws -> String in
                try await browser.signIn()
                return try await pendingSlug(directory)
            }()
            let stranger = Browser(client: browser.client)
            // act
            let sent = try await stranger.post("/libraries/\(slug)/decide", form: [("csrf", "x"), ("key", "k"), ("seen", "pending"), ("decision", "approve")])
            // check
            // Nothing kept, but said so, and after signing in the form's page again (its script offers back what was typed there).
            #expect(sent.status == .seeOther && sent.location == "/sign-in?form_not_sent=1&next=%2Flibraries%2F\(slug)", "\(sent.location ?? "")")
            let kept = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keptForm")
            }
            #expect(kept == 0)
        }
    }

    @Test("every signed-in page says when the session ends, for the script's warning")
    func pagesSayWhenTheSessionEnds() async throws {
        try await ConsoleFixture.withConsole(idleTimeout: 20 * 60) { browser, _, _ in
            // setup
            try await browser.signIn()
            // act
            let page = try await browser.get("/libraries")
            // check
            let match = try #require(page.html.firstMatch(of: #/data-session-ends-in="(\d+)"/#))
            let seconds = try #require(Int(match.1))
            #expect((20 * 60 - 120)...(20 * 60) ~= seconds, "\(seconds)")
            #expect(page.contains("Signed in until"))
        }
    }
}

extension ModerationStore {
    /// The staff id of the latest session (the one test account).
    func latestSessionStaffID() async throws -> Int? {
        try await recentSessions(now: Date(), activeSince: Date().addingTimeInterval(-3_600), limit: 1).first?.staffId
    }
}

extension String {
    /// As the templates escape it.
    var htmlEscapedForTest: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    @Test(
        "forms sent with no session at all: a rotation edited on its own answer page goes back to On call, and a decision says it was not saved and where it was going"
    )
    func formsWithoutAnySession() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, _ in
            // setup: a browser that never signed in (its cookie cleared), the page each form was on
            let anonymous = Browser(client: browser.client)
            // act 1: Up pressed on the rotation form, itself shown at the form's own address after an earlier edit
            anonymous.headers = [("Referer", "http://127.0.0.1/on-call/rotation")]
            let rotation = try await anonymous.post("/on-call/rotation", form: [("csrf", "x"), ("member", "staff"), ("edit", "up:1")])
            // check: sign-in returns to /on-call, a page that opens, not to the form's address
            #expect(rotation.status == .seeOther)
            #expect(rotation.location == "/sign-in?form_not_sent=1&next=%2Fon-call")
            // act 2: a report's decision with no cookie at all
            anonymous.headers = [("Referer", "http://127.0.0.1/reports/11")]
            let decision = try await anonymous.post("/reports/11/decide", form: [("csrf", "x"), ("decision", "resolve"), ("seen", "open")])
            // check: said not saved, and where it was going
            let location = try #require(decision.location)
            #expect(location.contains("form_not_sent=1") && location.contains("next=%2Freports%2F11"), "\(location)")
            anonymous.headers = []
            let signIn = try await anonymous.get(location)
            #expect(signIn.contains("the form you sent was not saved"))
            #expect(signIn.contains("go back to \u{2068}/reports/11\u{2069}"))
        }
    }
}
