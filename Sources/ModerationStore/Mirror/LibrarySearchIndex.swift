import ModerationVocabulary

/// What `mirrorLibrarySearch` holds and how it is asked: the folded text of each library and, in
/// a column of its own, a three-character code for its status or its absence. Three characters
/// are one trigram, so "and pending" costs the index one list of rows, not a phrase.
enum LibrarySearchIndex {
    /// The code of a present library in `status`: what the generated column `searchState`
    /// holds (migration `v43`, where the codes are written out; a new status needs a migration).
    static func stateCode(_ status: LibraryStatus) -> String {
        switch status {
        case .pending: "=p="
        case .approved: "=a="
        case .rejected: "=r="
        }
    }

    /// The code of a library the backend no longer has (`goneAt` set).
    static let goneCode = "=g="

    /// The FTS5 query for folded `text` (three characters or more: a trigram phrase is a
    /// substring) among present libraries in `status` (every status when `nil`). Quotes are
    /// doubled, so anything typed is text, never query syntax.
    static func match(folded text: String, status: LibraryStatus?) -> String {
        let phrase = "searchText: \"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        if let status { return phrase + " AND searchState: \"\(stateCode(status))\"" }
        return phrase + " NOT searchState: \"\(goneCode)\""
    }

    /// Whether folded `text` is long enough for the index (shorter ones scan the folded column).
    static func canSearch(folded text: String) -> Bool {
        text.unicodeScalars.count >= 3
    }
}
