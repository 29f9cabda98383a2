import ModerationStore
import Mustache

/// A rejection form shown again because it could not be acted on (no reason, too long):
/// the error said next to the field, the reason and the chosen preset as they were sent.
struct RejectionFormState: MustacheParent {
    let error: String
    let hasError: Bool
    let typedReason: String
    /// The presets, the one that was chosen marked.
    let presets: [FilterOption]
    /// "My own reason, written below" was the choice.
    let ownChosen: Bool
    let ownReason = DecisionReason.ownReason

    static let empty = RejectionFormState(error: "", typedReason: "", chosenPreset: "", presets: DecisionController.presetReasons)

    init(error: String, typedReason: String, chosenPreset: String, presets: [String]) {
        self.error = error
        hasError = !error.isEmpty
        self.typedReason = typedReason
        self.presets = presets.map { FilterOption(value: $0, label: $0, selected: $0 == chosenPreset) }
        ownChosen = chosenPreset == DecisionReason.ownReason
    }

    func child(named key: String) -> Any? {
        switch key {
        case "error": error
        case "hasError": hasError
        case "typedReason": typedReason
        case "presets": presets
        case "ownChosen": ownChosen
        case "ownReason": ownReason
        default: nil
        }
    }
}

extension FormError {
    /// Whether the form's only fault is its reason: then it is shown again to fix, not refused.
    var isAboutTheReason: Bool {
        switch self {
        case .reasonRequired, .reasonTooLong: true
        default: false
        }
    }
}

extension DecisionForm {
    /// `validated(for:)` as a value, so a caller can show some errors on the form and refuse the rest.
    func checked(for kind: ModerationAction.TargetKind) -> Result<Intent, FormError> {
        do {
            return .success(try validated(for: kind))
        } catch {
            return .failure(error)
        }
    }
}
