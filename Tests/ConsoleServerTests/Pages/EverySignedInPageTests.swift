import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// What every signed-in page's frame carries, and the names pages show for ids.
@Suite("Every signed-in page: navigation counts, names, sign-in and sign-out", .timeLimit(.minutes(3)))
struct EverySignedInPageTests {
    private static let hostile = #"<script>alert("x")</script> 'quoted' & مكتبة 📚"#
    private static let escapedHostile = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;quoted&#39; &amp; مكتبة 📚"

    @Test("the navigation counts show on the audit log, an audit entry, an outbox message, the reject and bulk confirmations, My devices and an error page")
    func navigationCountsEverywhere() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: signed in (the mirror holds 60 pending libraries), one outbox message, one library's page
            try await browser.signIn()
            let message = try await OutboxFiller(path: directory.path("console.sqlite")).add(1, firstRecipient: 50)[0]
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let slugs = try await store.oldestMirroredLibraries(status: .pending, count: 2).map(\.slug)
            try #require(slugs.count == 2)
            let library = try await browser.get("/libraries/\(slugs[0])")
            let auditID = try await #require(try store.auditEntries(limit: 1).first?.id)

            // act
            let rejectForm = try #require(library.html.range(of: #"class="reject-form""#).map { String(library.html[$0.upperBound...]) })
            let fields = Page(status: .ok, headers: [:], html: rejectForm)
            let reject = try await browser.post(
                "/libraries/\(slugs[0])/decide",
                form: [
                    ("csrf", library.csrfToken ?? ""), ("key", fields.field("key") ?? ""), ("queue", fields.field("queue") ?? ""),
                    ("seen", "pending"), ("decision", "reject"), ("reason", Self.hostile),
                ])
            let list = try await browser.get("/libraries?status=pending")
            let bulk = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("key", list.field("key") ?? ""), ("back", "/libraries"), ("decision", "approve"),
                    ("item", Page.unescaped(list.field("item") ?? "")),
                ])
            let pages = [
                ("audit log", try await browser.get("/audit")),
                ("audit entry", try await browser.get("/audit/\(auditID)")),
                ("audit summary", try await browser.get("/audit/summary")),
                ("outbox message", try await browser.get("/outbox/\(message.id)")),
                ("reject confirmation", reject),
                ("bulk confirmation", bulk),
                ("my devices", try await browser.get("/devices")),
                ("not found", try await browser.get("/libraries/no-such-library")),
            ]

            // check: each has the Libraries badge with the mirror's count
            #expect(reject.contains("<h1>Reject <span dir=\"auto\""), "\(reject)")
            #expect(reject.contains(Self.escapedHostile), "the reason, escaped")
            for (name, page) in pages {
                #expect(page.contains(#"Libraries <span class="count" data-live-count="library">60</span>"#), "\(name): \(page)")
            }
        }
    }

    @Test("the outbox names the recipient the console knows, and says “a Book Corners user (id N)” only for one it has never seen")
    func outboxRecipientNames() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: two messages; the console has seen user 50 (as staff), never user 51
            let filler = OutboxFiller(path: directory.path("console.sqlite"))
            let messages = try await filler.add(2, firstRecipient: 50)
            try await ModerationStore(path: directory.path("console.sqlite")).recordStaffMember(StaffMember(id: 50, username: Self.hostile), signedInAt: nil)
            try await browser.signIn()

            // act
            let list = try await browser.get("/outbox")
            let known = try await browser.get("/outbox/\(try #require(messages.first { $0.recipientUserId == 50 }).id)")
            let unknown = try await browser.get("/outbox/\(try #require(messages.first { $0.recipientUserId == 51 }).id)")

            // check
            #expect(list.contains(#"<td data-label="To"><bdi>\#(Self.escapedHostile)</bdi></td>"#), "\(list)")
            #expect(list.contains(#"<td data-label="To"><bdi>a Book Corners user (id 51)</bdi></td>"#))
            #expect(!list.contains("<script>alert"))
            #expect(known.contains("to <bdi>\(Self.escapedHostile)</bdi></h1>"), "\(known)")
            #expect(unknown.contains("to <bdi>a Book Corners user (id 51)</bdi></h1>"))
        }
    }

    @Test("a submitter's name comes from the mirror when they are not staff")
    func submitterNamesFromTheMirror() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: a message to the submitter of a mirrored library
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let library = try await #require(
                try store.oldestMirroredLibraries(status: .pending, count: 20).first { $0.submitterId != nil && $0.submitterUsername != nil })
            let submitter = try #require(library.submitterId)

            // act
            let names = try await store.knownUsernames(userIDs: [submitter, 987_654])

            // check
            #expect(names == [submitter: try #require(library.submitterUsername)])
        }
    }

    @Test("after a wrong password the cursor waits in the password field (autofocus, no script needed); after signing out the page says so")
    func signInFocusAndSignOut() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, _ in
            // act
            let fresh = try await browser.get("/sign-in")
            let wrong = try await browser.post("/sign-in", form: [("csrf", fresh.csrfToken ?? ""), ("login", Self.hostile), ("password", "wrong")])
            try await browser.signIn()
            let dashboard = try await browser.get("/")
            let out = try await browser.post("/sign-out", form: [("csrf", dashboard.csrfToken ?? "")])
            let after = try await browser.get(try #require(out.location))

            // check
            #expect(fresh.contains(#"value="" autofocus>"#), "a fresh form starts at the login")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.contains(#"value="\#(Self.escapedHostile)">"#), "the login kept, escaped, without autofocus")
            #expect(wrong.contains(#"autocomplete="current-password" required maxlength="1024" autofocus>"#), "\(wrong)")
            #expect(after.contains(#"<p class="notice" role="alert">You have signed out.</p>"#))
            #expect(!fresh.contains("You have signed out."))
        }
    }
}
