/// One `<input type="hidden">` a confirmation page posts again as it came.
struct HiddenField: Sendable, Equatable {
    let name: String
    let value: String
}
