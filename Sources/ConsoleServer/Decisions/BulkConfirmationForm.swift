/// The bulk confirmation page's form: the same selection again, with the key the page was given.
struct BulkConfirmationForm: Decodable, Sendable {
    /// A confirmed bulk decision, ready to record.
    struct Confirmation: Sendable, Equatable {
        let items: [BulkItem]
        /// Each item's idempotency key is this and its position.
        let key: String
        let decision: Decision
        let reason: String
    }

    var item: RepeatedField?
    var key: String?
    var decision: String?
    var reason: String?
    var reasonPreset: String?

    private enum CodingKeys: String, CodingKey {
        case item, key, decision, reason
        case reasonPreset = "reason_preset"
    }

    func validated() throws(FormError) -> Confirmation {
        let items = try BulkItem.selection(item, limit: BulkSelectionForm.maxItems)
        guard let key = DecisionForm.idempotencyKey(key) else { throw .confirmationIncomplete }
        guard let decision = decision.flatMap(Decision.init(rawValue:)), [.approve, .reject].contains(decision) else {
            throw .confirmationDecisionMissing
        }
        let reason = try DecisionReason.text(typed: reason, preset: reasonPreset, required: decision == .reject)
        return Confirmation(items: items, key: key, decision: decision, reason: reason)
    }
}
