import Foundation
import ModerationStore
import Mustache

/// What the Verify button found, in words a staff member can act on: what "intact" means,
/// and the head hash to keep somewhere else (a rewritten log could verify again, but its
/// head would no longer match a copy kept outside it).
struct AuditVerdictText: MustacheParent {
    let intact: Bool
    let message: String
    let explanation: String
    /// The newest entry's hash; empty when the chain is broken.
    let headHash: String
    let hasHeadHash: Bool

    init(_ verdict: AuditChainVerdict) {
        switch verdict {
        case .intact(let entries, let head):
            intact = true
            message = "All \(CountText.of(entries, "entry", "entries")) are as they were recorded."
            explanation =
                "Every entry still matches its own hash and the hash of the entry before it: none has been changed, removed or put in another order since it was written."
            headHash = head
        case .broken(let id, let reason):
            intact = false
            message = "Entry \(id) is not as it was recorded: \(reason)."
            explanation =
                "The entries before it check out; from entry \(id) on, the log cannot be trusted. Tell the console's maintainers, and keep this page and an export as evidence."
            headHash = ""
        }
        hasHeadHash = !headHash.isEmpty
    }

    func child(named key: String) -> Any? {
        switch key {
        case "intact": intact
        case "message": message
        case "explanation": explanation
        case "headHash": headHash
        case "hasHeadHash": hasHeadHash
        default: nil
        }
    }
}
