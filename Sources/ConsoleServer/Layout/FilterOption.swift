import Mustache

/// One option of a filter's `<select>`.
struct FilterOption: MustacheParent {
    let value: String
    let label: String
    let selected: Bool

    /// "Any …" first, then each value as its own label.
    static func choices(_ values: [String], selected: String?, any: String) -> [FilterOption] {
        var options = [FilterOption(value: "", label: any, selected: selected == nil)]
            + values.map { FilterOption(value: $0, label: $0, selected: $0 == selected) }
        // A value typed into the URL that the log does not hold yet still shows as chosen.
        if let selected, !values.contains(selected) { options.append(FilterOption(value: selected, label: selected, selected: true)) }
        return options
    }

    func child(named key: String) -> Any? {
        switch key {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}
