import Foundation
import Testing

@testable import ConsoleServer

/// The bulk form's draft travels in the list's address: it must come back exactly as it went,
/// whatever was typed, and never put a control character into the address.
@Suite("Bulk draft in the list's address")
struct BulkDraftTests {
    @Test("ticks, decision, preset and a reason with CR LF, markup, quotes, right-to-left text and an emoji come back as they went")
    func roundTrip() throws {
        let reason = "First line <b>bold</b> & \"quoted\" 'single'\r\nשלום عالم\r\nlast line 📚 + / = ?"
        let draft = BulkDraft(slugs: ["corner-one", "ümlaut-slug"], decision: "reject", preset: "Not a library", reason: reason)
        let url = draft.url(returningTo: "/libraries?status=pending&q=a%20b#old")
        let query = String(try #require(url.split(separator: "?", maxSplits: 1).last).prefix { $0 != "#" })
        #expect(url.hasPrefix("/libraries?status=pending&q=a%20b&bulk_item=corner-one&bulk_item=%C3%BCmlaut-slug&bulk_decision=reject"))
        #expect(url.hasSuffix("#library-corner-one"), "the old fragment replaced by the first ticked row")
        #expect(RequestTargetProblem(path: "/libraries", query: query) == nil, "no control character in the address: \(query)")
        #expect(BulkDraft(query: query) == draft)
        #expect(BulkDraft.removed(from: query) == "status=pending&q=a%20b", "the list's own address keeps its filters only")
    }

    @Test("a draft from a hand-edited address is bounded and forgiving: at most 50 rows, an unreadable reason is empty")
    func bounded() {
        let many = (0..<80).map { "bulk_item=s\($0)" }.joined(separator: "&")
        #expect(BulkDraft(query: many).slugs.count == 50)
        #expect(BulkDraft(query: "bulk_reason=%%%not-base64!").reason == "")
        #expect(BulkDraft(query: nil) == BulkDraft())
        #expect(BulkDraft().url(returningTo: "/libraries?status=pending") == "/libraries?status=pending")
    }
}
