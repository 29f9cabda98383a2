import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Claims: “I'm reviewing this” seen by colleagues, decide anyway, take-over audited", .timeLimit(.minutes(3)))
struct ClaimTests {
    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// A second staff member, signed in on their own browser against the same console.
    private func maria(_ browser: Browser) async throws -> Browser {
        let maria = Browser(client: browser.client)
        let page = try await maria.signIn("maria", password: SeedAccounts.demoStaffPassword)
        #expect(page.status == .seeOther, "maria is staff in the sandbox")
        return maria
    }

    /// The first library the list offers to claim (so: pending, unclaimed), by slug.
    private func claimableLibrary(_ list: Page, skipping: Set<String> = []) throws -> String {
        let slugs = list.html.matches(of: #/formaction="/libraries/([^"/]+)/claim"/#).map { String($0.1) }
        return try #require(slugs.first { !skipping.contains($0) }, "the pending list offers “I'm reviewing this”: \(list)")
    }

    private func claim(_ browser: Browser, _ path: String, back: String) async throws {
        let csrf = try await browser.get(back).csrfToken ?? ""
        let answer = try await browser.post(path, form: [("csrf", csrf), ("back", back)])
        // Back to the page the form was on; on a list, at the item's row.
        let parts = path.split(separator: "/").map(String.init)
        let list = "/" + parts[0]
        let kind = ["libraries": "library", "reports": "report", "photos": "photo"][parts[0]] ?? parts[0]
        let onList = back == list || back.hasPrefix(list + "?")
        #expect(answer.status == .seeOther && answer.location == back + (onList ? "#\(kind)-\(parts[1])" : ""), "\(answer)")
    }

    @Test("staff claims a library: maria's list and detail page say who and how long; her decision asks first, then ends the claim")
    func othersSeeTheClaimAndDecideAnyway() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let maria = try await maria(browser)
            let slug = try claimableLibrary(try await browser.get("/libraries"))
            // act: staff claims it from its row
            try await claim(browser, "/libraries/\(slug)/claim", back: "/libraries")
            // check: staff sees their own claim, with Release
            let own = try await browser.get("/libraries")
            let named = await ItemText.name(.init(kind: .library, key: slug), store: try store(directory))
            #expect(named != "library \(slug)", "named as the mirror has it, not by its slug")
            #expect(own.contains("You are reviewing \(named.htmlEscapedForTest) for the next 15 min"), "the flash says so")
            let ownRow = own.item(containing: "href=\"/libraries/\(slug)?")
            #expect(ownRow.contains(#"<strong>You are reviewing</strong> · <span class="claim-left">15 min left</span>"#), "\(ownRow)")
            #expect(ownRow.contains(#"formaction="/libraries/\#(slug)/release""#))
            // check: maria's list row and the detail page name staff, with Take over and no claim button
            let list = try await maria.get("/libraries")
            let row = list.item(containing: "href=\"/libraries/\(slug)?")
            #expect(row.contains(#"<strong class="claim-holder">staff</strong> is reviewing · <span class="claim-left">15 min left</span>"#), "\(row)")
            #expect(row.contains(#"formaction="/libraries/\#(slug)/take-over""#) && !row.contains("/claim\""))
            let detail = try await maria.get("/libraries/\(slug)")
            #expect(detail.contains(#"<strong class="claim-holder">staff</strong> is reviewing · <span class="claim-left">15 min left</span>"#))
            #expect(detail.contains(#"<form method="post" action="/libraries/\#(slug)/take-over" class="claim-form">"#))
            // act: maria approves from the detail page
            let key = try #require(detail.field("key", after: "/libraries/\(slug)/decide"))
            let ask = try await maria.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", detail.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve"),
                ])
            // check: asked first, nothing recorded yet
            #expect(ask.status == .ok && ask.contains("is reviewing this — approve it anyway?"), "\(ask)")
            #expect(ask.contains(#"<span class="claim-holder">staff</span>"#))
            #expect(try await store(directory).auditEntries().allSatisfy { $0.targetKind == "session" }, "nothing recorded before deciding anyway")
            #expect(try await store(directory).activeClaim(.init(kind: .library, key: slug), now: Date())?.holderUsername == "staff")
            let resent = ask.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide")
            #expect(resent.contains { $0 == ("key", key) } && resent.contains { $0 == ("anyway", "1") }, "\(resent)")
            // act: she decides anyway
            let decided = try await maria.post("/libraries/\(slug)/decide", form: resent)
            // check: recorded and applied, and staff's claim ended as decided
            #expect(decided.status == .seeOther && decided.location == "/libraries/\(slug)")
            let store = try store(directory)
            let claims = try await store.claims(on: .init(kind: .library, key: slug))
            #expect(claims.map(\.state) == [.decided] && claims.first?.endedBy == "maria")
            #expect(try await waitForAudit(store, action: "library.approve", slug: slug)?.actorUsername == "maria")
            let after = try await browser.get("/libraries/\(slug)")
            #expect(!after.contains("You are reviewing") && !after.contains("is reviewing ·"), "the claim is gone from staff's page")
        }
    }

    @Test("your own claim never asks; your decision ends it")
    func ownClaimNeverAsks() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let slug = try claimableLibrary(try await browser.get("/libraries"))
            try await claim(browser, "/libraries/\(slug)/claim", back: "/libraries/\(slug)")
            let detail = try await browser.get("/libraries/\(slug)")
            #expect(detail.contains(#"<strong>You are reviewing</strong> · <span class="claim-left">15 min left</span>"#))
            // act
            let answer = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", detail.csrfToken ?? ""), ("key", detail.field("key", after: "/libraries/\(slug)/decide") ?? ""), ("seen", "pending"),
                    ("decision", "approve"),
                ])
            // check
            #expect(answer.status == .seeOther, "\(answer)")
            #expect(try await store(directory).claims(on: .init(kind: .library, key: slug)).map(\.state) == [.decided])
        }
    }

    @Test("a rejection on someone else's claimed library: the reject confirmation, then decide anyway, keep the reason")
    func rejectionKeepsItsFields() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let maria = try await maria(browser)
            let slug = try claimableLibrary(try await browser.get("/libraries"))
            try await claim(browser, "/libraries/\(slug)/claim", back: "/libraries")
            let detail = try await maria.get("/libraries/\(slug)")
            let reason = #"Not a library. <b>"Quoted"</b> 📚"#
            // act: the reject confirmation, as before
            let confirm = try await maria.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", detail.csrfToken ?? ""), ("key", detail.field("key", after: #"class="reject-form""#) ?? ""), ("seen", "pending"),
                    ("decision", "reject"), ("reason", reason),
                ])
            #expect(confirm.contains("<h1>Reject <span dir=\"auto\""), "the confirmation names the library")
            let ask = try await maria.post("/libraries/\(slug)/decide", form: confirm.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide"))
            #expect(ask.contains("is reviewing this — reject it anyway?"), "\(ask)")
            #expect(ask.contains("&lt;b&gt;&quot;Quoted&quot;&lt;/b&gt;"), "the reason travels escaped")
            let done = try await maria.post("/libraries/\(slug)/decide", form: ask.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide"))
            // check
            #expect(done.status == .seeOther, "\(done)")
            let store = try store(directory)
            let entry = try #require(try await waitForAudit(store, action: "library.reject", slug: slug))
            #expect(entry.reason == reason && entry.actorUsername == "maria")
            #expect(try await store.claims(on: .init(kind: .library, key: slug)).first?.state == .decided)
        }
    }

    @Test("a quick approval from a list row and a bulk decision on claimed libraries: asked or listed, never refused")
    func quickAndBulk() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: staff claims two libraries
            try await browser.signIn()
            let maria = try await maria(browser)
            let list = try await browser.get("/libraries")
            // The first with a one-click Approve (a possible duplicate has Compare… instead, and no one-click approval).
            let first = try #require(list.html.firstMatch(of: #/formaction="/libraries/([^/"]+)/decide" name="quick"/#).map { String($0.1) })
            let second = try claimableLibrary(list, skipping: [first])
            try await claim(browser, "/libraries/\(first)/claim", back: "/libraries")
            try await claim(browser, "/libraries/\(second)/claim", back: "/libraries")
            let hers = try await maria.get("/libraries")
            // act: maria's one-click approval of the first, which posts the list's bulk form
            let bulkForm = hers.hiddenFields(ofFormPostingTo: "/libraries/bulk")
            let ask = try await maria.post("/libraries/\(first)/decide", form: bulkForm + [("decision", "approve"), ("quick", "pending")])
            // check
            #expect(ask.contains("is reviewing this — approve it anyway?"), "\(ask)")
            let resent = ask.hiddenFields(ofFormPostingTo: "/libraries/\(first)/decide")
            #expect(resent.contains { $0 == ("quick", "pending") }, "\(resent)")
            #expect(try await maria.post("/libraries/\(first)/decide", form: resent).status == .seeOther)
            // act: the bulk confirmation of the second
            let confirm = try await maria.post(
                "/libraries/bulk",
                form: [
                    ("csrf", hers.csrfToken ?? ""), ("decision", "approve"), ("item", "\(second)|pending|Name"),
                ])
            // check: listed with who reviews it; confirming decides it
            #expect(confirm.contains("Someone else is reviewing this library"), "\(confirm)")
            #expect(confirm.contains(#"<span class="flag claim-flag">staff is reviewing · 15 min left</span>"#))
            let applied = try await maria.post("/libraries/bulk/confirm", form: confirm.hiddenFields(ofFormPostingTo: "/libraries/bulk/confirm"))
            #expect(applied.status == .seeOther, "\(applied)")
            let store = try store(directory)
            #expect(try await store.claims(on: .init(kind: .library, key: first)).first?.state == .decided)
            #expect(try await store.claims(on: .init(kind: .library, key: second)).first?.state == .decided)
        }
    }

    @Test("maria cannot claim what staff holds (she is told who); taking it over asks, is audited, and staff then sees maria")
    func takeOverAudited() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: staff claims the first open report
            try await browser.signIn()
            let maria = try await maria(browser)
            let reports = try await browser.get("/reports")
            let id = try #require(reports.html.firstMatch(of: #/action="/reports/(\d+)/claim"/#).map { String($0.1) }, "\(reports)")
            try await claim(browser, "/reports/\(id)/claim", back: "/reports")
            // act + check: maria's claim loses, and says who has it
            try await claim(maria, "/reports/\(id)/claim", back: "/reports")
            let hers = try await maria.get("/reports")
            #expect(hers.contains("staff is already reviewing report \(id) on "), "\(hers)")
            #expect(
                hers.item(containing: "/reports/\(id)/take-over").contains(
                    #"<strong class="claim-holder">staff</strong> is reviewing · <span class="claim-left">15 min left</span>"#))
            // maria's Release of a claim she never held says whose it is.
            _ = try await maria.post("/reports/\(id)/release", form: [("csrf", hers.csrfToken ?? ""), ("back", "/reports")])
            let notHers = try await maria.get("/reports")
            #expect(notHers.contains("You are not reviewing report \(id) on ") && notHers.contains(": staff is."), "\(notHers)")
            // act: Take over… shows the confirmation
            let ask = try await maria.post("/reports/\(id)/take-over", form: hers.hiddenFields(ofFormPostingTo: "/reports/\(id)/take-over"))
            #expect(ask.status == .ok && ask.contains("<strong>staff</strong> is reviewing this, 15 min left"), "\(ask)")
            let store = try store(directory)
            #expect(try await store.auditEntries().allSatisfy { $0.action != "claim.takeOver" }, "nothing audited before confirming")
            let taken = try await maria.post("/reports/\(id)/take-over", form: ask.hiddenFields(ofFormPostingTo: "/reports/\(id)/take-over"))
            // check: the take-over happened, is audited, and staff's view names maria
            #expect(taken.status == .seeOther && taken.location == "/reports#report-\(id)", "back to the report's row on the list")
            let entry = try #require(try await store.auditEntries().first { $0.action == "claim.takeOver" })
            #expect(entry.actorUsername == "maria" && entry.targetKind == "report" && entry.targetId == id)
            #expect(entry.statusBefore == "reviewed by staff" && entry.statusAfter == "reviewed by maria")
            #expect(try await browser.get("/audit").contains("claim.takeOver"))
            let his = try await browser.get("/reports")
            #expect(his.item(containing: "/reports/\(id)/take-over").contains(#"<strong class="claim-holder">maria</strong> is reviewing"#))
            // A confirmation of the claim as it was (staff's own, say, in another tab) takes nothing over.
            let stale = try await browser.post(
                "/reports/\(id)/take-over",
                form: [
                    ("csrf", his.csrfToken ?? ""), ("claim", ask.field("claim") ?? ""), ("back", "/reports"), ("confirmed", "1"),
                ])
            #expect(stale.status == .seeOther)
            let changed = try await browser.get("/reports")
            #expect(changed.contains("maria is reviewing report \(id) on ") && changed.contains(" now (the claim changed since you asked)"))
            #expect(try await store.auditEntries().filter { $0.action == "claim.takeOver" }.count == 1)
            // staff's Release now explains what happened
            _ = try await browser.post("/reports/\(id)/release", form: [("csrf", his.csrfToken ?? ""), ("back", "/reports")])
            let explained = try await browser.get("/reports")
            #expect(explained.contains("maria is reviewing report \(id) on "))
            #expect(explained.html.contains(#/ now: they took it over from you \d+ s ago\./#), "says how staff's own claim ended")
            #expect(try await store.claims(on: .init(kind: .report, key: id)).map(\.state) == [.active, .takenOver])
            // maria lets it go; staff's Release from the old page still says what happened to his
            let mariaPage = try await maria.get("/reports")
            _ = try await maria.post("/reports/\(id)/release", form: [("csrf", mariaPage.csrfToken ?? ""), ("back", "/reports")])
            _ = try await browser.post("/reports/\(id)/release", form: [("csrf", his.csrfToken ?? ""), ("back", "/reports")])
            #expect(
                try await browser.get("/reports").html.contains(
                    #/You were no longer reviewing report \d+ on .*: maria took it over \d+ s ago, and is no longer reviewing it either\./#))
        }
    }

    @Test("only what waits can be claimed: an unknown library, a decided one and an unknown report are refused with why, and nothing is claimed")
    func onlyWaitingItemsAreClaimed() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let approved = try await browser.get("/libraries?status=approved")
            let decided = try #require(approved.html.firstMatch(of: #/href="/libraries/([a-z0-9-]+)\?/#).map { String($0.1) }, "\(approved)")
            for (path, said) in [
                ("/libraries/no-such-library/claim", "There is no library no-such-library in the console's copy of Book Corners: nothing was claimed."),
                ("/libraries/\(decided)/claim", " is approved already: nothing waits for review, so nothing was claimed."),
                ("/reports/999999/claim", "There is no report 999999 in the console's copy of Book Corners: nothing was claimed."),
            ] {
                let csrf = try await browser.get("/libraries").csrfToken ?? ""
                let answer = try await browser.post(path, form: [("csrf", csrf), ("back", "/libraries")])
                #expect(answer.status == .seeOther, "\(path): \(answer)")
                #expect(try await browser.get("/libraries").contains(said.htmlEscapedForTest), "\(path)")
            }
            let store = try store(directory)
            for key in ["no-such-library", decided] { #expect(try await store.claims(on: .init(kind: .library, key: key)).isEmpty, "\(key)") }
            #expect(try await store.claims(on: .init(kind: .report, key: "999999")).isEmpty)
        }
    }

    @Test("a claimed photo: maria sees who reviews it on the grid; using it anyway asks, then records it and ends the claim")
    func photoDecideAnyway() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let maria = try await maria(browser)
            let photos = try await browser.get("/photos")
            let id = try #require(photos.html.firstMatch(of: #/action="/photos/(\d+)/claim"/#).map { String($0.1) }, "\(photos)")
            try await claim(browser, "/photos/\(id)/claim", back: "/photos")
            let grid = try await maria.get("/photos")
            let card = grid.item(containing: "/photos/\(id)/decide")
            #expect(card.contains(#"<strong class="claim-holder">staff</strong> is reviewing · <span class="claim-left">15 min left</span>"#), "\(card)")
            // act
            let ask = try await maria.post("/photos/\(id)/decide", form: grid.hiddenFields(ofFormPostingTo: "/photos/\(id)/decide") + [("decision", "approve")])
            #expect(ask.contains("is reviewing this — approve it anyway?"), "\(ask)")
            let done = try await maria.post("/photos/\(id)/decide", form: ask.hiddenFields(ofFormPostingTo: "/photos/\(id)/decide"))
            // check
            #expect(done.status == .seeOther && done.location == "/photos#photo-\(id)", "back at its card: \(done)")
            let claims = try await store(directory).claims(on: .init(kind: .photo, key: id))
            #expect(claims.map(\.state) == [.decided] && claims.first?.endedBy == "maria")
        }
    }

    @Test("the claim duration comes from configuration, and an expired claim leaves every page by itself")
    func configuredDurationAndExpiry() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.claimDuration = 2 }) { browser, _, _ in
            // setup
            try await browser.signIn()
            let maria = try await maria(browser)
            let slug = try claimableLibrary(try await browser.get("/libraries"))
            // act
            try await claim(browser, "/libraries/\(slug)/claim", back: "/libraries/\(slug)")
            // check: a 2-second claim reads as "1 min left", never "0 min left"
            let during = try await maria.get("/libraries/\(slug)")
            #expect(during.contains(#"<strong class="claim-holder">staff</strong> is reviewing · <span class="claim-left">1 min left</span>"#), "\(during)")
            try await Task.sleep(for: .milliseconds(2_200))
            let after = try await maria.get("/libraries/\(slug)")
            #expect(!after.contains("is reviewing ·"), "expired: nobody is shown")
            #expect(after.contains(#"<form method="post" action="/libraries/\#(slug)/claim" class="claim-form">"#), "claimable again")
            // staff's Release from the page shown while it ran says it had expired, not that it never was
            let csrf = try await browser.get("/libraries/\(slug)").csrfToken ?? ""
            _ = try await browser.post("/libraries/\(slug)/release", form: [("csrf", csrf), ("back", "/libraries/\(slug)")])
            let told = try await browser.get("/libraries/\(slug)")
            #expect(told.html.contains(#/You were no longer reviewing .*: your claim expired \d+ s ago\./#), "\(told)")
        }
    }

    /// The audit entry of a decision once the runner has sent it (it may take a moment).
    private func waitForAudit(_ store: ModerationStore, action: String, slug: String) async throws -> AuditEntry? {
        for _ in 0..<100 {
            if let entry = try await store.auditEntries().first(where: { $0.action == action && $0.targetSlug == slug }) { return entry }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
