/// The bulk confirmation page's form: the same selection again, with the key the page was given.
struct BulkConfirmationForm: Decodable, Sendable {
    /// A confirmed bulk decision, ready to record.
    struct Confirmation: Sendable, Equatable {
        let items: [BulkItem]
        /// Each item's idempotency key is this and its position.
        let key: String
        let decision: Decision
        let reason: String
        /// The list page to return to, as sent: the controller makes it safe.
        var back: String? = nil
    }

    var item: RepeatedField?
    var key: String?
    var decision: String?
    var reason: String?
    var reasonPreset: String?
    var back: String?

    private enum CodingKeys: String, CodingKey {
        case item, key, decision, reason, back
        case reasonPreset = "reason_preset"
    }

    func validated() throws(FormError) -> Confirmation {
        let items = try BulkItem.selection(item, limit: BulkSelectionForm.maxItems)
        guard let key = DecisionForm.idempotencyKey(key) else { throw .confirmationIncomplete }
        guard let decision = decision.flatMap(Decision.init(rawValue:)), [.approve, .reject].contains(decision) else {
            throw .confirmationDecisionMissing
        }
        let reason = try DecisionReason.text(typed: reason, preset: reasonPreset, required: decision == .reject)
        return Confirmation(items: items, key: key, decision: decision, reason: reason, back: back)
    }
}
