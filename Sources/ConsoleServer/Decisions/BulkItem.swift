import BookCornersAPI
import ModerationVocabulary

/// One library chosen in a bulk form, sent as `item=<slug>|<status seen>|<name>`.
struct BulkItem: Sendable, Equatable {
    let slug: String
    let seen: LibraryStatus
    let name: String

    init(slug: String, seen: LibraryStatus, name: String) {
        self.slug = slug
        self.seen = seen
        self.name = name
    }

    /// The item a field spells, or nil when it names no library or no status.
    init?(field: String) {
        let parts = field.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, ItemReference.isSlug(parts[0]), let seen = LibraryStatus(rawValue: parts[1]) else { return nil }
        self.slug = parts[0]
        self.seen = seen
        self.name = LibraryText.displayName(parts.count > 2 ? parts[2] : "")
    }

    /// The libraries a bulk form chose: those it spells right, each once, 1 to `limit` of them.
    static func selection(_ field: RepeatedField?, limit: Int) throws(FormError) -> [BulkItem] {
        var seen: Set<String> = []
        let items = (field?.values ?? []).compactMap(BulkItem.init(field:)).filter { seen.insert($0.slug).inserted }
        guard !items.isEmpty else { throw .noLibrarySelected }
        guard items.count <= limit else { throw .tooManyLibrariesSelected(limit: limit) }
        return items
    }
}
