import Mustache

/// One option of a filter's `<select>`.
struct FilterOption: MustacheParent {
    let value: String
    let label: String
    let selected: Bool

    /// "Any …" first, then each value with its label (by default the value itself).
    static func choices(
        _ values: [String], selected: String?, any: String, label: (String) -> String = { $0 }
    ) -> [FilterOption] {
        var options =
            [FilterOption(value: "", label: any, selected: selected == nil)]
            + values.map { FilterOption(value: $0, label: label($0), selected: $0 == selected) }
        // A value typed into the URL that the log does not hold yet still shows as chosen.
        if let selected, !values.contains(selected) { options.append(FilterOption(value: selected, label: label(selected), selected: true)) }
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
