/// The form of a claim, release or take-over (the CSRF field is checked by the middleware).
/// A library list row posts the whole bulk form it sits in: its other fields are ignored.
struct ClaimForm: Decodable, Sendable {
    /// Where to return, as sent: the controller makes it safe.
    var back: String?
    /// `1` on the take-over confirmation's form.
    var confirmed: String?
    /// The id of the claim the confirmation showed: only that one is taken over.
    var claim: String?
}
