/// The form of a claim, release or take-over (the CSRF field is checked by the middleware).
/// A library list row posts the whole bulk form it sits in: what was ticked and typed there
/// comes back with the list (`draft`), nothing else of it is used.
struct ClaimForm: Decodable, Sendable {
    /// Where to return, as sent: the controller makes it safe.
    var back: String?
    /// `1` on the take-over confirmation's form.
    var confirmed: String?
    /// The id of the claim the confirmation showed: only that one is taken over.
    var claim: String?
    var item: RepeatedField?
    var decision: String?
    var reason: String?
    var reasonPreset: String?

    private enum CodingKeys: String, CodingKey {
        case back, confirmed, claim, item, decision, reason
        case reasonPreset = "reason_preset"
    }

    /// The list's bulk form as the row's button sent it.
    var draft: BulkDraft { BulkDraft(item: item, decision: decision, preset: reasonPreset, reason: reason) }
}
