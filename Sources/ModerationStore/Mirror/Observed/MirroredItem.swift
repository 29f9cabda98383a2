import Foundation
import GRDB
import ModerationVocabulary

/// A mirror row the sync compares with what the backend now says (libraries, reports,
/// photos), with what an observed audit entry names it by.
protocol MirroredItem: PersistableRecord, FetchableRecord {
    static var kind: ModerationAction.TargetKind { get }
    var id: Int { get }
    /// How a decision on it names it (`ModerationAction.targetKey`): a library's slug, else the id.
    var actionKey: String { get }
    var auditSlug: String { get }
    var auditName: String { get }
    var itemStatus: ItemStatus { get }
    /// The rejection reason the backend shows; empty when it shows none.
    var shownRejectionReason: String { get }
    var createdAt: Date { get }
    var lastConfirmedAt: Date { get }
    var goneAt: Date? { get }
}

extension MirrorLibrary: MirroredItem {
    static var kind: ModerationAction.TargetKind { .library }
    var actionKey: String { slug }
    var auditSlug: String { slug }
    var auditName: String { name }
    var itemStatus: ItemStatus { ItemStatus(status) }
    var shownRejectionReason: String { status == .rejected ? rejectionReason : "" }
}

extension MirrorReport: MirroredItem {
    static var kind: ModerationAction.TargetKind { .report }
    var actionKey: String { String(id) }
    var auditSlug: String { librarySlug }
    var auditName: String { libraryName }
    var itemStatus: ItemStatus { ItemStatus(status) }
    var shownRejectionReason: String { "" }
}

extension MirrorPhoto: MirroredItem {
    static var kind: ModerationAction.TargetKind { .photo }
    var actionKey: String { String(id) }
    var auditSlug: String { librarySlug }
    var auditName: String { libraryName }
    var itemStatus: ItemStatus { ItemStatus(status) }
    var shownRejectionReason: String { "" }
}
