import Foundation
import ModerationStore
import ModerationVocabulary

/// Reads the settings form into `ConcernSettings`, or says in one sentence what is wrong.
enum ConcernSettingsInput {
    struct Problem: Error, Equatable {
        let message: String
    }

    static func settings(from form: ConcernSettingsForm) -> Result<ConcernSettings, Problem> {
        func whole(_ text: String?, _ label: String, _ range: ClosedRange<Int>, _ unit: String) -> Result<Int, Problem> {
            let typed = (text ?? "").trimmingCharacters(in: .whitespaces)
            guard let value = Int(typed), range.contains(value) else {
                return .failure(Problem(message: "\(label) must be a whole number \(unit)from \(range.lowerBound) to \(range.upperBound)."))
            }
            return .success(value)
        }
        let metres = ConcernSettings.distanceRange
        let counts = ConcernSettings.countRange
        do throws(Problem) {
            let strong = try whole(form.strongDuplicateMetres, "“Duplicate, strong within”", metres, "of metres ").get()
            let near = try whole(form.duplicateMetres, "“Duplicate, worth a look within”", metres, "of metres ").get()
            let sameName = try whole(form.sameNameMetres, "“Same name within”", metres, "of metres ").get()
            let burst = try whole(form.burstSubmissions, "“Many in an hour”", counts, "").get()
            let rejections = try whole(form.strongRejections, "“Often rejected, strong from”", counts, "").get()
            guard strong <= near else {
                return .failure(Problem(message: "“Duplicate, strong within” (\(strong) m) cannot be farther than “worth a look within” (\(near) m)."))
            }
            let typed = TypedText.withLineFeeds(form.suspectWords ?? "")
            if let unmatchable = SuspectWords.firstUnmatchable(in: typed) {
                return .failure(
                    Problem(
                        message:
                            "“\(unmatchable.prefix(20))” has no letter or digit, so it would never match: the suspect list matches words and phrases. Remove it or write it in words."
                    ))
            }
            let words = SuspectWords.parse(typed)
            guard words.count <= ConcernSettings.maxWords else {
                return .failure(Problem(message: "The suspect list holds at most \(ConcernSettings.maxWords) words; it has \(words.count)."))
            }
            if let long = words.first(where: { $0.count > ConcernSettings.wordLength }) {
                return .failure(
                    Problem(message: "Each suspect word or phrase is at most \(ConcernSettings.wordLength) characters: “\(long.prefix(20))…” is longer."))
            }
            return .success(
                ConcernSettings(
                    strongDuplicateMetres: strong, duplicateMetres: near, sameNameMetres: sameName, burstSubmissions: burst, strongRejections: rejections,
                    suspectWords: words))
        } catch {
            return .failure(error)
        }
    }

    /// What the form carries to tell the settings it was shown with from later ones.
    static func seen(_ settings: ConcernSettings) -> String {
        StableHash.of(settings.fingerprintFields)
    }
}
