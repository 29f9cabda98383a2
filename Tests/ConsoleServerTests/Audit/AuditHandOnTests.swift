import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Audit reports people hand on: times a reader can place, names they can tell apart, files
/// that say what they hold and open intact in a spreadsheet, and a verdict in words.
@Suite("Audit reports people can hand on", .timeLimit(.minutes(3)))
struct AuditHandOnTests {
    private static let hostile = #"<script>alert("x")</script> 'quoted' & Библиотека 📚"#
    private static let escapedHostile = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;quoted&#39; &amp; Библиотека 📚"

    private func entry(_ name: String, slug: String, at time: Date, actor: String = "maria") -> AuditEntry {
        AuditEntry(
            recordedAt: time, actorId: 7, actorUsername: actor, action: "library.approve", targetKind: "library", targetId: "1",
            targetSlug: slug, targetName: name, statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied,
            backendStatus: 200, requestId: "r", clientAddress: "192.0.2.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
    }

    @Test("the log shows each time on the team's clock with its zone, the age as a hint; a name that repeats gets its city")
    func timesAndCities() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the team works on Rome time; two mirrored libraries get the same (hostile) name in the log, a third its own
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await store.putTeam(on: "Europe/Rome")
            let libraries = try await store.mirroredLibraries(status: .approved, limit: 40, offset: 0)
            let first = try #require(libraries.first)
            let second = try #require(libraries.first { $0.city != first.city })
            let third = try #require(libraries.first { $0.slug != first.slug && $0.slug != second.slug })
            let july = try #require(ISOTime.parse("2026-07-14T19:05:00Z"))
            try await store.appendAudit(entry(Self.hostile, slug: first.slug, at: july))
            try await store.appendAudit(entry(Self.hostile, slug: second.slug, at: july.addingTimeInterval(60)))
            try await store.appendAudit(entry("Only once", slug: third.slug, at: july.addingTimeInterval(120)))

            // act
            let page = try await browser.get("/audit")

            // check: summer time in Rome is named as winter's is, "Rome time" (Linux would name it by its offset, UTC+2)
            #expect(page.contains(#"<th scope="col">When (Rome time)</th>"#))
            #expect(page.contains(#"<time datetime="2026-07-14T19:05:00Z" title="2026-07-14 19:05 UTC">2026-07-14 21:05 "#), "\(page)")
            let stamp = try #require(page.html.range(of: "2026-07-14 21:05 ").map { String(page.html[$0.upperBound...].prefix { $0 != "<" }) })
            #expect(stamp == "Rome time", "the zone: \(stamp)")
            #expect(page.contains(#"</time> <span class="age">"#) && page.contains(" ago</span>"), "the age as a hint")
            #expect(page.contains("<bdi>\(Self.escapedHostile) (\(ConsoleHTMLContentType.escape(first.city)))</bdi>"))
            #expect(page.contains("<bdi>\(Self.escapedHostile) (\(ConsoleHTMLContentType.escape(second.city)))</bdi>"))
            #expect(page.contains("<bdi>Only once</bdi>"), "a name that does not repeat stays as it is")
            #expect(!page.contains("<script>alert"))
        }
    }

    @Test(
        "exports are named for their period and filters; the spreadsheet CSV starts with a byte-order mark and has the columns a person reads, each time on the team's clock as a date-time; verifying it says in words to use the plain CSV, which re-verifies"
    )
    func exportFiles() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: the team works on Rome time; decisions on libraries with Cyrillic, Arabic and Japanese names, one in July
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await store.putTeam(on: "Europe/Rome")
            let july = try #require(ISOTime.parse("2026-07-14T19:05:00.250Z"))
            for (index, name) in ["Книжный уголок", "مكتبة الحي", "本の交換箱", Self.hostile].enumerated() {
                try await store.appendAudit(
                    entry(name, slug: "slug-\(index)", at: index == 0 ? july : Date(), actor: index == 3 ? Self.hostile : "maria"))
            }
            let today = ISOTime.day(Date())
            let list = try await browser.get("/audit?staff=maria&from=2026-07-01")

            // act
            let spreadsheet = try await browser.client.execute(
                uri: "/audit/export?format=spreadsheet-csv&staff=maria&from=2026-07-01", method: .get,
                headers: [.cookie: browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")], body: nil)
            let bytes = Array(spreadsheet.body.readableBytesView)
            let plain = try await browser.get("/audit/export?format=csv&staff=maria&from=2026-07-01")
            let hostileName = try await browser.get(
                "/audit/export?format=csv&staff=\(Self.hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            let summary = try await browser.get("/audit/summary?format=csv&outcome=applied")

            // check: the page offers both CSVs
            #expect(
                list.contains(
                    #"<a href="/audit/export?staff=maria&amp;from=2026-07-01&amp;format=spreadsheet-csv" download>CSV for Excel and spreadsheets</a>"#),
                "\(list)")
            #expect(list.contains(#"format=csv" download>plain CSV</a>"#))
            #expect(
                list.contains("The spreadsheet CSV is for reading") && list.contains("download the plain CSV or NDJSON"), "the page says which files verify")
            // check: names say what the file holds
            #expect(
                spreadsheet.headers[.contentDisposition] == "attachment; filename=\"book-corners-audit-2026-07-01-to-\(today)-staff-maria-spreadsheet.csv\"")
            #expect(plain.headers[.contentDisposition] == "attachment; filename=\"book-corners-audit-2026-07-01-to-\(today)-staff-maria.csv\"")
            #expect(summary.headers[.contentDisposition] == "attachment; filename=\"book-corners-audit-summary-start-to-\(today)-outcome-applied.csv\"")
            let unsafe = try #require(hostileName.headers[.contentDisposition])
            #expect(unsafe == ("attachment; filename=\"book-corners-audit-start-to-\(today)-staff-script-alert-x-script-quoted.csv\""), "\(unsafe)")
            #expect(
                unsafe.dropFirst("attachment; filename=\"".count).dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) })
            // check: the byte-order mark, then columns in words; July's entry at 21:05 in Rome (summer time), beside its UTC instant
            #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
            let text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
            let records = try AuditCSV.records(in: text)
            let header = try #require(records.first)
            #expect(header == ["When (Europe/Rome)", "Who", "What", "Item", "Reason or note", "Result"], "\(header)")
            #expect(records.allSatisfy { $0.count == header.count }, "every row has the header's columns")
            let rows = records.dropFirst().filter { $0[1] == "maria" }
            #expect(rows.map { $0[3] } == ["Книжный уголок", "مكتبة الحي", "本の交換箱"], "names intact")
            let first = try #require(rows.first)
            #expect(first == ["2026-07-14 21:05:00", "maria", "Library approved", "Книжный уголок", "", "Done"], "\(first)")
            #expect(rows.allSatisfy { $0[0].wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) != nil }, "a date-time a spreadsheet reads")
            // check: verifying the spreadsheet CSV says what to verify instead; the plain CSV keeps the machine names and re-verifies
            #expect(throws: AuditCSVError.spreadsheetVariant) { try AuditExportFile.entries(in: "\u{FEFF}" + text) }
            #expect(AuditCSVError.spreadsheetVariant.description.contains("Check the plain CSV or the NDJSON"))
            #expect(!plain.html.hasPrefix("\u{FEFF}") && plain.html.hasPrefix("id,recordedAt,"))
            let entries = try AuditExportFile.entries(in: plain.html)
            #expect(entries.map(\.targetName) == ["Книжный уголок", "مكتبة الحي", "本の交換箱"])
            #expect(entries.allSatisfy { $0.computedHash() == $0.hash })
        }
    }

    @Test("the log's From and To are the team's days: on Rome time an entry at 00:30 on the 15th (22:30 UTC on the 14th) is the 15th's")
    func daysOnTheTeamsClock() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: Rome time; one entry half an hour into 15 July in Rome
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await store.putTeam(on: "Europe/Rome")
            try await store.appendAudit(entry("Past midnight", slug: "past-midnight", at: try #require(ISOTime.parse("2026-07-14T22:30:00Z"))))

            // act
            let fifteenth = try await browser.get("/audit?from=2026-07-15&to=2026-07-15")
            let fourteenth = try await browser.get("/audit?from=2026-07-14&to=2026-07-14")

            // check
            #expect(fifteenth.contains("<bdi>Past midnight</bdi>"), "\(fifteenth)")
            #expect(!fourteenth.contains("<bdi>Past midnight</bdi>"), "\(fourteenth)")
        }
    }

    @Test("Verify says in words what intact means and offers the head hash to keep somewhere else")
    func verifyInWords() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await store.appendAudit(entry(Self.hostile, slug: "s", at: Date()))
            let head = try #require(try await store.auditEntries(limit: 1).first?.hash)
            let audit = try await browser.get("/audit")

            // act
            let verified = try await browser.post("/audit/verify", form: [("csrf", audit.csrfToken ?? "")])

            // check
            #expect(verified.contains("<strong>Intact.</strong> All ") && verified.contains(" entries are as they were recorded."), "\(verified)")
            #expect(verified.contains("none has been changed, removed or put in another order since it was written"))
            #expect(
                verified.contains(#"<label for="head-hash">Head hash (the newest entry's)</label> <input id="head-hash" type="text" readonly value="\#(head)""#)
            )
            #expect(verified.contains("Keep a copy of the head hash somewhere outside the console"))
            #expect(!verified.contains("<script>alert"))
        }
    }
}

/// An entry of a keyed chain, on its page: checked with the console's audit key, not called changed.
@Suite("Audit entry page with a keyed chain", .timeLimit(.minutes(3)))
struct KeyedAuditEntryPageTests {
    @Test("a keyed entry matches its hash when the console holds the key")
    func keyedEntryMatches() async throws {
        let keyDirectory = try TemporaryDirectory()
        defer { keyDirectory.remove() }
        // setup: a 32-byte key only its owner can read
        let keyPath = keyDirectory.path("audit.key")
        #expect(
            FileManager.default.createFile(
                atPath: keyPath, contents: Data((0..<32).map { UInt8($0) }), attributes: [.posixPermissions: 0o600]))
        try await ConsoleFixture.withConsole(configure: { $0.auditKeyPath = keyPath }) { browser, _, directory in
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"), auditKey: try AuditKey.load(path: keyPath))
            let entry = try #require(try await store.auditEntries(limit: 1).first)
            // act
            let page = try await browser.get("/audit/\(entry.id ?? 0)")
            // check
            #expect(page.contains("This entry&#39;s contents match its hash.") || page.contains("This entry's contents match its hash."), "\(page)")
            #expect(!page.contains("it was changed"))
        }
    }
}
