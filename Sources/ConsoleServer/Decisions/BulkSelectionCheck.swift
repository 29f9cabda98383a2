import Foundation
import ModerationStore
import Mustache

/// A bulk selection checked against the mirror, on the confirmation page and again when it is
/// confirmed (both forms can be edited by hand): each library once, by the name the mirror
/// knows, never one the mirror has never seen; and approving in bulk leaves out a library with
/// a strong reason, as its row's one-click Approve does.
struct BulkSelectionCheck {
    /// A library that stays in the decision, with what the mirror knows of it (nil before its first pass).
    struct Chosen {
        let item: BulkItem
        let library: MirrorLibrary?
        let concerns: [LibraryConcern]
    }

    /// A library approving in bulk left out, and why.
    struct LeftOut: MustacheParent, Equatable {
        let name: String
        let libraryURL: String
        let why: String

        func child(named key: String) -> Any? {
            switch key {
            case "name": name
            case "libraryURL": libraryURL
            case "why": why
            default: nil
            }
        }
    }

    let chosen: [Chosen]
    let leftOut: [LeftOut]

    /// Throws when a library is unknown to a mirror that has made its first pass, or when every one is left out.
    static func check(_ items: [BulkItem], decision: Decision, store: ModerationStore) async throws -> BulkSelectionCheck {
        let mirrorHasRead = try await store.mirrorSummary() != nil
        var libraries: [String: MirrorLibrary] = [:]
        for item in items {
            if let library = try await store.mirroredLibrary(slug: item.slug) {
                libraries[item.slug] = library
            } else if mirrorHasRead {
                throw FormError.unknownLibrary(item.slug)
            }
        }
        // Every library's reasons in one read of the evidence, not one per library.
        let reasons = try await LibraryConcerns.of(Array(libraries.values), in: store)
        var chosen: [Chosen] = []
        var leftOut: [LeftOut] = []
        for item in items {
            guard let library = libraries[item.slug] else {
                chosen.append(Chosen(item: item, library: nil, concerns: []))
                continue
            }
            let known = BulkItem(slug: item.slug, seen: item.seen, name: LibraryText.displayName(library.name))
            let concerns = reasons[library.id] ?? []
            if decision == .approve, let strong = concerns.first(where: { $0.strength == .strong }) {
                leftOut.append(LeftOut(name: known.name, libraryURL: SiteURL.library(item.slug).path, why: strong.sentence))
            } else {
                chosen.append(Chosen(item: known, library: library, concerns: concerns))
            }
        }
        guard !chosen.isEmpty else { throw FormError.everyLibraryNeedsALook(count: leftOut.count) }
        return BulkSelectionCheck(chosen: chosen, leftOut: leftOut)
    }
}
