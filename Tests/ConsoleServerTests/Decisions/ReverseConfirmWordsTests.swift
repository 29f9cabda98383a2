import Foundation
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// The reversal confirmation asks in English a moderator would write: "an approved library".
@Suite("Reversal confirmation: its question")
struct ReverseConfirmWordsTests {
    @Test(
        "the article before the status follows its sound",
        arguments: [
            (ItemStatus.approved, ItemStatus.pending, "Return an approved library to pending?"),
            (.rejected, .pending, "Return a rejected library to pending?"),
            (.rejected, .approved, "Approve a library that was rejected?"),
        ])
    func heading(seen: ItemStatus, wanted: ItemStatus, expected: String) {
        let page = ReverseConfirmPage(
            layout: PageModels.layout("Confirm", active: .libraries), name: "Corner Books", seen: seen, wanted: wanted,
            earlier: DecidedNote(status: seen, entry: nil, mirroredReason: "", now: PageModels.now), decideURL: "/libraries/corner/decide", fields: [],
            cancelURL: "/libraries/corner")
        #expect(page.heading == expected)
    }
}
