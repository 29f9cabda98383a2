import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The audit summary and the spreadsheet CSV are handed on to people who never open the
/// console: the summary prints from the browser as a clean A4 document, read back here from the
/// PDF Chromium makes; the CSV is downloaded by a click and read as a spreadsheet would.
@Suite("The audit summary on paper and the spreadsheet CSV", .timeLimit(.minutes(3)))
struct AuditSummaryPrintTests {
    private static let staff = ["maria", "jonas", "yuki", "priya", "ahmed", "lea"]
    private static let ownWords = "Looks like a shop to me"
    /// The library presets, the duplicate preset as the library page fills it in (naming the
    /// library), and someone's own words.
    private static let libraryReasons =
        DecisionController.presetReasons + ["Duplicate of “Corner Books”, already on the map 12 m away.", ownWords]

    private func entry(
        _ action: String, by actor: String, kind: String, reason: String = "", outcome: AuditOutcome = .applied, at time: Date,
        name: String = "Corner Books", client: String = "192.0.2.1", userAgent: String = "test"
    ) -> AuditEntry {
        AuditEntry(
            recordedAt: time, actorId: 7, actorUsername: actor, action: action, targetKind: kind, targetId: "1", targetSlug: "corner-books",
            targetName: name, statusBefore: "pending", statusAfter: action.hasSuffix("reject") ? "rejected" : "approved", reason: reason,
            outcome: outcome, backendStatus: 200, requestId: "r", clientAddress: client, userAgent: userAgent,
            itemCreatedAt: time.addingTimeInterval(-7_200), actionId: nil)
    }

    /// November 2026 on a team of six: ten decisions a day of seven kinds, rejections for every
    /// preset (the duplicate one mostly as the library page words it) and in own words, and each
    /// day a note on a report, a review taken over and a decision not sent (a conflict), none of
    /// which decided anything. Answers the decisions expected, by kind and by reason.
    private func seedMonth(_ store: ModerationStore) async throws -> (kinds: [String: Int], reasons: [String: Int]) {
        let first = try #require(ISOTime.parse("2026-11-01T08:00:00Z"))
        var kinds: [String: Int] = [:]
        var reasons: [String: Int] = [:]
        let duplicateOnTheMap = "Duplicate of “Book Nook” 30 m away, already waiting for review."
        for day in 0..<30 {
            let morning = first.addingTimeInterval(Double(day) * 86_400)
            for slot in 0..<10 {
                let time = morning.addingTimeInterval(Double(slot) * 1_800)
                let actor = Self.staff[(day * 10 + slot) % Self.staff.count]
                let (action, kind, reason): (String, String, String) =
                    switch slot {
                    case 0, 1, 2: ("library.approve", "library", "")
                    case 3: ("library.reject", "library", Self.libraryReasons[day % Self.libraryReasons.count])
                    case 4: ("photo.approve", "photo", "")
                    case 5: ("photo.reject", "photo", DecisionController.photoPresetReasons[day % DecisionController.photoPresetReasons.count])
                    case 6: ("report.resolve", "report", "")
                    case 7: ("report.dismiss", "report", "")
                    case 8: ("library.returnToPending", "library", "")
                    default: ("library.reject", "library", day.isMultiple(of: 2) ? duplicateOnTheMap : "")
                    }
                try await store.appendAudit(entry(action, by: actor, kind: kind, reason: reason, at: time))
                kinds[AuditActionName.of(action), default: 0] += 1
                if action.hasSuffix("reject") {
                    let counted =
                        reason.isEmpty
                        ? AuditSummary.noReason
                        : reason == Self.ownWords ? AuditSummary.otherReason : reason.hasPrefix("Duplicate of") ? DecisionController.presetReasons[0] : reason
                    reasons[counted, default: 0] += 1
                }
            }
            let evening = morning.addingTimeInterval(6 * 3_600)
            try await store.appendAudit(entry("report.note", by: "maria", kind: "report", reason: "Called the owner", outcome: .succeeded, at: evening))
            try await store.appendAudit(entry("claim.takeOver", by: "jonas", kind: "library", outcome: .succeeded, at: evening.addingTimeInterval(60)))
            try await store.appendAudit(entry("library.approve", by: "yuki", kind: "library", outcome: .conflict, at: evening.addingTimeInterval(120)))
        }
        return (kinds, reasons)
    }

    /// The text of the PDF Chromium prints of the page it shows, page by page, and its page count.
    private func printed(_ browser: WebDriver, into directory: TemporaryDirectory) async throws -> (pages: [String], count: Int) {
        let pdf = try await browser.printToPDF()
        let file = directory.path("summary.pdf")
        try pdf.write(to: URL(fileURLWithPath: file))
        let info = try ChildProcess.run("/usr/bin/pdfinfo", [file]).output
        #expect(info.contains("(A4)"), "\(info)")
        let count = Int(info.firstMatch(of: /Pages:\s+(\d+)/).map { String($0.1) } ?? "") ?? 0
        let pages = try (1...max(count, 1)).map { page in
            try ChildProcess.run("/usr/bin/pdftotext", ["-f", "\(page)", "-l", "\(page)", file, "-"]).output
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        return (pages, count)
    }

    /// Each table's rows under its section's heading, as the page shows them: heading → [first cell: second cell].
    private func tables(_ browser: WebDriver) async throws -> [String: [String: Int]] {
        let rows =
            try await browser.execute(
                """
                return [...document.querySelectorAll('.summary-grid section')].flatMap(s => [...s.querySelectorAll('tbody tr')]
                  .map(r => [s.querySelector('h2').textContent, r.cells[0].textContent, r.cells[1].textContent]));
                """) as? [[String]] ?? []
        var tables: [String: [String: Int]] = [:]
        for row in rows where row.count == 3 { tables[row[0], default: [:]][row[1]] = Int(row[2]) }
        return tables
    }

    @Test(
        "a month printed from “all dates”: Book Corners and who made it, the first and latest entry's dates, decisions by kind and by reason (no notes, take-overs or conflicts; the duplicate preset under its own words), no outcomes or hashes, on at most two A4 pages with page 1 full"
    )
    func printsAMonthAsAReport() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: Rome time; a month of decisions and of things that are not decisions
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.putTeam(on: "Europe/Rome")
            let expected = try await seedMonth(store)
            try await browser.signInAsStaff(console: console)

            // act: the summary of all dates, printed
            try await browser.go(console + "/audit/summary")
            _ = try await browser.source(containing: "Moderation summary")
            let shown = try await tables(browser)
            let paper = try await printed(browser, into: directory)
            guard case .intact(_, let head) = try await store.verifyAuditChain() else {
                Issue.record("the chain should verify")
                return
            }

            // check: whose report, made by whom, over which dates, on which clock
            let flat = paper.pages.joined(separator: " ")
            for expectedText in [
                "Book Corners Moderation summary", "2026-11-01 – 2026-11-30 (all dates: the first entry to the latest)", "300 decisions",
                "Made by staff on", "times in Rome time", "By kind of decision", "Rejections by reason", "By staff member",
                "Time from submission to decision", "New libraries", "was checked when this was made",
            ] {
                #expect(flat.contains(expectedText), "“\(expectedText)” on paper: \(flat)")
            }
            #expect(!flat.contains("all dates ·"), "the range is named by its dates")
            // check: decisions by kind and by reason, as the tables show them; the duplicate preset counted as itself
            #expect(shown["By kind of decision"] == expected.kinds, "\(shown)")
            #expect(shown["Rejections by reason"] == expected.reasons, "\(shown)")
            #expect((expected.reasons[DecisionController.presetReasons[0]] ?? 0) == 5 + 4 + 15, "the seeding's own arithmetic")
            #expect(shown["By staff member"]?.values.reduce(0, +) == 300 && shown["By staff member"]?["yuki"] == 50, "\(shown)")
            for reason in expected.reasons.keys { #expect(flat.contains(reason), "“\(reason)” on paper") }
            // check: what decided nothing is not a decision; no outcome codes, hashes or internal words
            for absent in [
                "Note on a report", "Review taken over", "succeeded", "applied", "Applied", "conflict", "By outcome", "hash", "Hash", "Duplicate of “",
                "Sign out", "Dashboard", "Download as CSV", "Skip to content", "Print", "My devices",
            ] {
                #expect(!flat.contains(absent), "“\(absent)” printed: \(flat)")
            }
            #expect(!flat.replacingOccurrences(of: " ", with: "").contains(head.prefix(16)), "the chain's head is not on paper")
            // check: two pages at most, the first one full: its sections start there
            #expect(paper.count >= 1 && paper.count <= 2, "\(paper.count) pages")
            let firstPage = try #require(paper.pages.first)
            #expect(firstPage.contains("By kind of decision") && firstPage.contains("Rejections by reason"), "page 1: \(firstPage)")
            let drawn = try await browser.execute("return document.querySelectorAll('.summary-chart svg').length") as? Int
            #expect(drawn == 3, "one drawing per chart: \(drawn ?? -1)")
        }
    }

    @Test(
        "the spreadsheet CSV downloaded by a click on the audit page has the columns a person reads (when on the team's clock, who, what, which item, reason or note, result), no client address, browser or hash, and no cell a spreadsheet would run as a formula"
    )
    func spreadsheetCSVForPeople() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: Rome time (+01:00 in November); entries whose names, reasons and typed logins start like formulas
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.putTeam(on: "Europe/Rome")
            let time = try #require(ISOTime.parse("2026-11-10T10:00:00Z"))
            try await store.appendAudit(
                entry("library.reject", by: "maria", kind: "library", reason: "+39 06 555 0100 is the owner", at: time, name: "=HYPERLINK(\"http://x\")"))
            try await store.appendAudit(entry("report.note", by: "maria", kind: "report", reason: "-2 books left", outcome: .succeeded, at: time + 60))
            try await store.appendAudit(
                entry("library.approve", by: "jonas", kind: "library", outcome: .conflict, at: time + 120, name: "@SUM(A1)", userAgent: "Mozilla/5.0 =x"))
            try await store.appendAudit(entry("photo.approve", by: "yuki", kind: "photo", at: time + 180, name: "\tTabbed"))
            let heads = try await store.auditEntries(limit: 20).map(\.hash)
            try await browser.signInAsStaff(console: console)

            // act: the person clicks “CSV for Excel and spreadsheets”
            try await browser.go(console + "/audit?from=2026-11-10&to=2026-11-10")
            _ = try await browser.source(containing: "export-bar")
            let downloads = directory.path("downloads")
            try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
            try await browser.allowDownloads(to: downloads)
            try await browser.click(".export-bar a[href*='spreadsheet-csv']")
            let bytes = try await Self.download(in: downloads)

            // check: a byte-order mark for Excel, then the columns a person reads
            #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
            let text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
            let records = try AuditCSV.records(in: text)
            #expect(records.first == ["When (Europe/Rome)", "Who", "What", "Item", "Reason or note", "Result"], "\(records.first ?? [])")
            #expect(records.count == 5 && records.allSatisfy { $0.count == 6 }, "\(records)")
            // check: no cell starts as a formula would (OWASP: = + - @ tab CR); those that did carry a ' in front
            for cell in records.joined() {
                #expect(!["=", "+", "-", "@", "\t", "\r"].contains(where: { cell.hasPrefix($0) }), "a cell a spreadsheet would run: \(cell)")
            }
            let rows = Array(records.dropFirst())
            #expect(
                rows.first == ["2026-11-10 11:00:00", "maria", "Library rejected", "'=HYPERLINK(\"http://x\")", "'+39 06 555 0100 is the owner", "Done"],
                "\(rows.first ?? [])")
            #expect(rows.dropFirst().first?[2] == "Note on a report" && rows.dropFirst().first?[4] == "'-2 books left")
            #expect(rows.dropFirst(2).first?[3] == "'@SUM(A1)" && rows.dropFirst(2).first?[5] == "Not sent: someone had changed the item first")
            #expect(rows.last?[3] == "'\tTabbed")
            // check: nothing for machines
            for absent in ["192.0.2.1", "Mozilla", "+01:00", "library.approve"] + heads { #expect(!text.contains(absent), "“\(absent)” in the CSV") }
        }
    }

    /// The bytes of the one file the browser finished downloading into `directory`.
    private static func download(in directory: String) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            // Chromium makes an empty file of the final name first and writes to a .crdownload beside it.
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            if !names.contains(where: { $0.hasSuffix(".crdownload") }), let name = names.first,
                let data = FileManager.default.contents(atPath: directory + "/" + name), !data.isEmpty
            {
                return Array(data)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no download finished in \(directory)")
        return []
    }
}
