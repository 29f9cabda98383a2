import Mustache

/// The rotation form's list of staff, used by pointing and clicking: who is in it, in turn
/// order, each with Up, Down and Remove, and who can be added (the staff the console knows:
/// everyone who has signed in). The buttons send the form; the server redraws the list.
struct RotationPicker: MustacheParent, Sendable {
    /// One person on the rotation.
    struct Row: MustacheParent, Sendable {
        let username: String
        /// "1st", as the list shows it to screen readers too ("maria, 2nd of 3").
        let position: String
        let upValue: String
        let downValue: String
        let removeValue: String
        let canMoveUp: Bool
        let canMoveDown: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "username": username
            case "position": position
            case "upValue": upValue
            case "downValue": downValue
            case "removeValue": removeValue
            case "canMoveUp": canMoveUp
            case "canMoveDown": canMoveDown
            default: nil
            }
        }
    }

    let rows: [Row]
    let hasRows: Bool
    /// Known staff not on the rotation yet, "Choose…" first.
    let candidates: [FilterOption]
    let hasCandidates: Bool
    /// A username typed into the add field and refused, kept to correct.
    let typed: String
    let notice: String
    let hasNotice: Bool

    init(names: [String], known: [String], typed: String, notice: String) {
        rows = names.enumerated().map { index, name in
            Row(
                username: name, position: "\(index + 1) of \(names.count)", upValue: "up:\(index)", downValue: "down:\(index)",
                removeValue: "remove:\(index)", canMoveUp: index > 0, canMoveDown: index < names.count - 1)
        }
        hasRows = !names.isEmpty
        let listed = Set(names.map { $0.lowercased() })
        let addable = known.filter { !listed.contains($0.lowercased()) }.sorted { $0.lowercased() < $1.lowercased() }
        candidates = [FilterOption(value: "", label: "Choose…", selected: true)] + addable.map { FilterOption(value: $0, label: $0, selected: false) }
        hasCandidates = !addable.isEmpty
        self.typed = typed
        self.notice = notice
        hasNotice = !notice.isEmpty
    }

    func child(named key: String) -> Any? {
        switch key {
        case "rows": rows
        case "hasRows": hasRows
        case "candidates": candidates
        case "hasCandidates": hasCandidates
        case "typed": typed
        case "notice": notice
        case "hasNotice": hasNotice
        default: nil
        }
    }
}
