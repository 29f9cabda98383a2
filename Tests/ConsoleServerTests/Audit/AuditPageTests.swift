import Foundation
import GRDB
import HTTPTypes
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Audit pages: browse, entry, verify, export, summary", .timeLimit(.minutes(3)))
struct AuditPageTests {
    /// Appends `count` decisions by two staff members to the console's own database.
    private func appendDecisions(_ count: Int, to directory: TemporaryDirectory, name: (Int) -> String = { "Library \($0)" }) async throws {
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        for index in 1...count {
            try await store.appendAudit(
                AuditEntry(
                    recordedAt: Date().addingTimeInterval(Double(index - count)), actorId: 7, actorUsername: index % 2 == 0 ? "zoë" : "amir",
                    action: index % 5 == 0 ? "library.reject" : "library.approve", targetKind: "library", targetId: "\(1000 + index)",
                    targetSlug: "slug-\(index)", targetName: name(index), statusBefore: "pending",
                    statusAfter: index % 5 == 0 ? "rejected" : "approved", reason: index % 5 == 0 ? "Not a book box, \"really\"" : "",
                    outcome: .applied, backendStatus: 200, requestId: "req-\(index)", clientAddress: "192.0.2.1", userAgent: "test",
                    itemCreatedAt: Date().addingTimeInterval(-86_400 * Double(index % 7 + 1)), actionId: nil))
        }
    }

    private func entryIDs(in page: Page) -> [Int] {
        page.html.components(separatedBy: "<td class=\"audit-id\"><a href=\"/audit/").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    private func href(_ rel: String, in page: Page) -> String? {
        guard let range = page.html.range(of: #"rel="\#(rel)""#) else { return nil }
        let before = page.html[..<range.lowerBound]
        guard let start = before.range(of: "href=\"", options: .backwards) else { return nil }
        return String(before[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("a sign-in that did not succeed reads as an attempt by what was typed, shortened, not as a staff member signing in")
    func failedSignInIsAnAttempt() {
        func entry(_ username: String, actorId: Int?, outcome: AuditOutcome) -> AuditEntry {
            AuditEntry(
                recordedAt: Date(), actorId: actorId, actorUsername: username, action: AuditEntry.signInAction, targetKind: "session", targetId: "",
                targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: outcome, backendStatus: nil, requestId: "r",
                clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
        }
        let long = String(repeating: "x", count: 5_000)
        let failed = AuditRow(entry(long, actorId: nil, outcome: .failed), now: Date())
        #expect(failed.action == "Sign-in attempt")
        #expect(failed.actor == "typed “\(String(repeating: "x", count: 40))…”")
        let refused = AuditRow(entry("visitor", actorId: 9, outcome: .refused), now: Date())
        #expect(refused.action == "Sign-in attempt" && refused.actor == "typed “visitor”", "an account that is not staff")
        let signedIn = AuditRow(entry("staff", actorId: 1, outcome: .succeeded), now: Date())
        #expect(signedIn.action == "Signed in" && signedIn.actor == "staff")
    }

    @Test("newest first; paging by id stays put while new entries arrive")
    func stablePaging() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(120, to: directory)
            let first = try await browser.get("/audit?action=library.approve")
            let firstIDs = entryIDs(in: first)
            #expect(firstIDs.count == 50)
            #expect(firstIDs == firstIDs.sorted(by: >))
            #expect(first.contains("96 matching entries"))
            let older = try #require(href("next", in: first))
            try await appendDecisions(10, to: directory)
            let second = try await browser.get(older)
            let secondIDs = entryIDs(in: second)
            #expect(secondIDs.first.map { $0 < firstIDs.last ?? 0 } == true)
            #expect(Set(secondIDs).isDisjoint(with: firstIDs), "no entry shown twice after new ones arrived")
            #expect(second.contains("action=library.approve"), "links keep the filters")
            let back = try await browser.get(try #require(href("prev", in: second)))
            #expect(entryIDs(in: back) == firstIDs, "Newer goes back to exactly the first page")
        }
    }

    @Test("filters by staff, outcome, target text and dates; a bad date is named and ignored")
    func filters() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(20, to: directory)
            let zoe = try await browser.get("/audit?staff=zo%C3%AB")
            #expect(zoe.contains("10 matching entries"))
            let target = try await browser.get("/audit?q=Library%2017")
            #expect(entryIDs(in: target).count == 1)
            // A search form sends a space as "+" (application/x-www-form-urlencoded).
            let typed = try await browser.get("/audit?q=Library+17")
            #expect(entryIDs(in: typed) == entryIDs(in: target), "a space typed in the search box is a space")
            #expect(typed.contains(#"value="Library 17""#))
            let today = String(ISOTime.string(Date()).prefix(10))
            let dated = try await browser.get("/audit?from=\(today)&to=\(today)&outcome=applied")
            #expect(dated.contains("20 matching entries"))
            let bad = try await browser.get("/audit?from=yesterday")
            #expect(bad.status == .ok)
            #expect(bad.contains("From “yesterday” is not a date like 2026-11-01, so it was ignored."))
        }
    }

    @Test("an entry page shows every field escaped, links the library and its neighbours")
    func entryPage() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(3, to: directory, name: { $0 == 2 ? "<script>alert('x')</script> مكتبة" : "Library \($0)" })
            // Entry 1 is the sign-in.
            let page = try await browser.get("/audit/3")
            #expect(page.status == .ok)
            #expect(
                page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; مكتبة")
                    || page.contains("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; مكتبة"))
            #expect(!page.contains("<script>alert"))
            #expect(page.contains(#"href="/libraries/slug-2""#))
            #expect(page.contains(#"href="/audit/2" rel="prev""#) && page.contains(#"href="/audit/4" rel="next""#))
            #expect(page.contains("This entry's contents match its hash."))
            #expect(page.contains("req-2"))
            #expect(try await browser.get("/audit/99").status == .notFound)
            #expect(try await browser.get("/audit/abc").status == .notFound)
        }
    }

    @Test("the Verify button reports an intact chain, and names the entry someone edited")
    func verifyButton() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(5, to: directory)
            let audit = try await browser.get("/audit")
            let csrf = try #require(audit.csrfToken)
            let ok = try await browser.post("/audit/verify", form: [("csrf", csrf)])
            #expect(ok.contains("<strong>Intact.</strong> All 6 entries are as they were recorded."))
            let head = try #require(try await ModerationStore(path: directory.path("console.sqlite")).auditEntries(limit: 1).first?.hash)
            #expect(ok.contains(#"<input id="head-hash" type="text" readonly value="\#(head)""#), "the head hash, to copy")
            let tamperer = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            try await tamperer.write { db in
                try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
                try db.execute(sql: "UPDATE auditEntry SET reason = 'edited later' WHERE id = 4")
            }
            let broken = try await browser.post("/audit/verify", form: [("csrf", csrf)])
            #expect(broken.contains("<strong>Not intact.</strong> Entry 4 is not as it was recorded: its contents do not match its hash"), "\(broken)")
            #expect(try await browser.post("/audit/verify", form: [("csrf", "forged")]).status == .forbidden)
        }
    }

    @Test("a formula typed as a login is neutralised in the CSV download and stays out of the Staff filter")
    func failedSignInFormula() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: someone plants a formula as the login of a failed sign-in
            let formula = "=HYPERLINK(\"http://evil.example/?x\",\"Click\")"
            let failed = try await browser.signIn(formula, password: "wrong")
            #expect(failed.status == .unauthorized)
            try await browser.signIn()

            // act
            let page = try await browser.get("/audit")
            let download = try await browser.get("/audit/export?format=csv")

            // check: the Staff filter offers who signed in, not what was typed
            let start = try #require(page.html.range(of: #"<select name="staff">"#))
            let end = try #require(page.html.range(of: "</select>", range: start.upperBound..<page.html.endIndex))
            let options = String(page.html[start.upperBound..<end.lowerBound])
            #expect(options.contains(#"<option value="staff">staff</option>"#))
            #expect(!options.contains("HYPERLINK"))
            #expect(page.contains("typed “=HYPERLINK(&quot;http://evil.example/?x&quot;,&quot;Cli…”"), "the entry itself is still listed, as an attempt")

            // check: the cell starts with a quote; reading the file back gives the login as typed, and the hashes verify
            let records = try AuditCSV.records(in: download.html)
            let cell = try #require(records.first { $0[4] == "session.signIn" && $0[12].hasPrefix("failed") }?[3])
            #expect(cell == "'" + formula)
            let entries = try AuditCSV.entries(in: download.html)
            #expect(entries.contains { $0.actorUsername == formula })
            #expect(entries.allSatisfy { $0.computedHash() == $0.hash })

            // check: the entry's own page calls the name what was typed, not a staff member
            let entry = try await browser.get("/audit/1")
            #expect(entry.contains("Login typed"), "\(entry)")
            #expect(!entry.contains("Staff member"))
        }
    }

    @Test("a CSV download keeps the filters, re-verifies, and is itself audited")
    func csvDownload() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(12, to: directory, name: { "Shelf \($0), \"the\" 📚 corner\nnext line" })
            let today = String(ISOTime.string(Date()).prefix(10))
            let download = try await browser.get("/audit/export?format=csv&staff=amir&from=\(today)")
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == "text/csv; charset=utf-8; header=present")
            #expect(download.headers[.contentDisposition] == "attachment; filename=\"book-corners-audit-\(today)-to-\(today)-staff-amir.csv\"")
            let entries = try AuditCSV.entries(in: download.html)
            #expect(entries.count == 6)
            #expect(entries.allSatisfy { $0.actorUsername == "amir" && $0.computedHash() == $0.hash })
            #expect(entries.first?.targetName == "Shelf 1, \"the\" 📚 corner\nnext line")
            let ndjson = try await browser.get("/audit/export?format=ndjson&action=library.reject")
            #expect(ndjson.html.split(separator: "\n").count == 2)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let exports = try await store.auditEntries(limit: 2).filter { $0.action == AuditEntry.exportAction }
            #expect(exports.map(\.actorUsername) == ["staff", "staff"])
            #expect(exports.last?.targetName == "csv export: from \(today), staff amir")
        }
    }

    @Test("no audit entry, no export: when the entry cannot be written the download is refused with words, and a HEAD records nothing")
    func exportRefusedWhenNotAudited() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: a database that refuses export entries (as a full disk or a broken file would)
            try await browser.signIn()
            try await appendDecisions(4, to: directory, name: { "Secret shelf \($0)" })
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            try await database.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refuseExportEntries BEFORE INSERT ON auditEntry WHEN NEW.action = '\(AuditEntry.exportAction)'
                        BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END
                        """)
            }

            // act
            let refused = try await browser.get("/audit/export?format=csv")
            let head = try await browser.head("/audit/export?format=ndjson")
            try await database.write { db in try db.execute(sql: "DROP TRIGGER refuseExportEntries") }
            try database.close()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let exportsBefore = try await store.auditEntries(limit: 50).filter { $0.action == AuditEntry.exportAction }.count
            let allowed = try await browser.get("/audit/export?format=csv")

            // check: refused in words, none of the log in it; a HEAD exports and records nothing
            #expect(refused.status == .serviceUnavailable, "\(refused)")
            #expect(refused.headers[.contentDisposition] == nil)
            #expect(!refused.contains("Secret shelf"))
            #expect(refused.contains("The export was not made"), "\(refused)")
            #expect(head.status == .ok && head.html.isEmpty)
            #expect(exportsBefore == 0)
            #expect(allowed.status == .ok && allowed.contains("Secret shelf 4"))
            #expect(try await store.auditEntries(limit: 50).filter { $0.action == AuditEntry.exportAction }.count == 1)
        }
    }

    @Test("the summary page and its CSV count decisions and waiting times; an empty range says so")
    func summary() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            try await appendDecisions(10, to: directory)
            let page = try await browser.get("/audit/summary")
            #expect(page.status == .ok)
            #expect(page.contains("10 decisions"))
            #expect(page.contains("<td>Library approved</td><td class=\"number\">8</td><td class=\"number\">80 %</td>"))
            #expect(page.contains("Time from submission to decision"))
            let csv = try await browser.get("/audit/summary?format=csv")
            #expect(csv.html.hasPrefix("group,key,decisions,median_hours,p90_hours\r\n"))
            #expect(csv.html.contains("staff,amir,5,,\r\n"))
            let empty = try await browser.get("/audit/summary?from=2001-01-01&to=2001-01-02")
            #expect(empty.contains("No decisions in this range."))
        }
    }

    @Test("one decision is counted in the singular on the summary and the statistics page")
    func singular() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            try await appendDecisions(1, to: directory)
            // act
            let summary = try await browser.get("/audit/summary")
            let statistics = try await browser.get("/statistics")
            // check
            #expect(summary.contains("</strong> · 1 decision</p>"), "\(summary)")
            #expect(statistics.contains("1 decision in the last 30 days: 1 library approved."))
            #expect(!statistics.contains("1 decisions") && !statistics.contains("1 libraries"))
        }
    }
}
