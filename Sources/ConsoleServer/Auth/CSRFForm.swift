/// The one field every state-changing form carries; the rest of the form is its controller's.
struct CSRFForm: Decodable, Sendable {
    let csrf: String?
}
