/// The library list's bulk form: the ticked rows, approve or reject, and a reason when rejecting.
struct BulkSelectionForm: Decodable, Sendable {
    /// A selection that checks out, ready for its confirmation page.
    struct Selection: Sendable, Equatable {
        let items: [BulkItem]
        let decision: Decision
        let reason: String
        /// The list the selection was made on, as sent: the controller makes it safe.
        var back: String? = nil
    }

    var item: RepeatedField?
    var decision: String?
    var reason: String?
    var reasonPreset: String?
    /// The list page (filters, order, page) to return to once the decisions are recorded.
    var back: String?

    private enum CodingKeys: String, CodingKey {
        case item, decision, reason, back
        case reasonPreset = "reason_preset"
    }

    static let maxItems = 50

    func validated() throws(FormError) -> Selection {
        let items = try BulkItem.selection(item, limit: Self.maxItems)
        guard items.allSatisfy({ $0.seen == .pending }) else { throw .onlyWaitingLibraries }
        guard let decision = decision.flatMap(Decision.init(rawValue:)), [.approve, .reject].contains(decision) else {
            throw .bulkDecisionMissing
        }
        let reason = try DecisionReason.text(typed: reason, preset: reasonPreset, required: decision == .reject)
        return Selection(items: items, decision: decision, reason: reason, back: back)
    }
}
