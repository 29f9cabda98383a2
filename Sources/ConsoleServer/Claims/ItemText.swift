import ModerationStore

/// How messages name a claimed item.
enum ItemText {
    /// "library corner-books", "report 42", "photo 7": when the mirror does not know the item.
    static func name(_ target: ItemClaim.Target) -> String {
        "\(target.kind.rawValue) \(target.key)"
    }

    /// "Bench Library in Toronto", "report 42 on Bench Library in Toronto", "photo 7 of …":
    /// the mirror's name (one read), else the kind and key.
    static func name(_ target: ItemClaim.Target, store: ModerationStore) async -> String {
        guard let known = await (try? store.targetNames(of: [(target.kind, target.key)]))?[DecisionTargetName.key(target.kind, target.key)] else {
            return name(target)
        }
        let library = LibraryText.nameInCity(LibraryText.displayName(known.name), city: known.city)
        switch target.kind {
        case .library: return library
        case .report: return "report \(target.key) on \(library)"
        case .photo: return "photo \(target.key) of \(library)"
        }
    }
}
