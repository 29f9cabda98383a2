import Mustache

/// One `<input type="hidden">` a confirmation page posts again as it came.
struct HiddenField: Sendable, Equatable, MustacheParent {
    let name: String
    let value: String

    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "value": value
        default: nil
        }
    }
}
