import Foundation
import ModerationStore
import Mustache

/// The claim line of one item, on a list row or a detail page: nothing, "You are reviewing ·
/// 12 min left [Release]", "bob is reviewing · 8 min left [Take over]", or the "I'm reviewing
/// this" button. Every field has a value, so a template never finds an outer one by the same name.
struct ClaimBadge: Sendable, Hashable, MustacheParent {
    /// Anything to show at all.
    let isShown: Bool
    let isMine: Bool
    let isOthers: Bool
    /// Unclaimed and still waiting for a decision.
    let canClaim: Bool
    let holder: String
    /// "8 min left".
    let timeLeft: String
    /// When the claim runs out.
    private let ends: Date?
    /// Inside another form (a library list row sits in the bulk form): buttons use `formaction`.
    let insideForm: Bool
    /// What the buttons act on; nil for a badge that shows nothing.
    private let target: ItemClaim.Target?
    /// Where the claim forms return to.
    let back: String

    init(claim: ItemClaim?, target: ItemClaim.Target, viewerId: Int?, isWaiting: Bool, now: Date, back: String, insideForm: Bool = false) {
        isMine = claim != nil && claim?.holderId == viewerId
        isOthers = claim != nil && !isMine
        canClaim = claim == nil && isWaiting
        isShown = claim != nil || canClaim
        holder = claim?.holderUsername ?? ""
        timeLeft = claim.map { "\($0.minutesLeft(at: now)) min left" } ?? ""
        ends = claim?.expiresAt
        self.insideForm = insideForm
        self.target = target
        self.back = back
    }

    /// Shows nothing (a page that could not load its item).
    static let hidden = ClaimBadge()

    private init() {
        isShown = false
        isMine = false
        isOthers = false
        canClaim = false
        holder = ""
        timeLeft = ""
        ends = nil
        insideForm = false
        target = nil
        back = ""
    }

    // Worked out when the markup asks (`KeyedFragment`: a queue row kept from an earlier view never does).
    /// When the claim runs out (ISO 8601), "" without one: an open page counts down and clears it.
    var endsISO: String { ends.map(TimeText.iso) ?? "" }
    var claimURL: String { target.map { SiteURL.claim($0).path } ?? "" }
    var releaseURL: String { target.map { SiteURL.claimRelease($0).path } ?? "" }
    var takeOverURL: String { target.map { SiteURL.claimTakeOver($0).path } ?? "" }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": isShown
        case "isMine": isMine
        case "isOthers": isOthers
        case "canClaim": canClaim
        case "holder": holder
        case "timeLeft": timeLeft
        case "endsISO": endsISO
        case "insideForm": insideForm
        case "claimURL": claimURL
        case "releaseURL": releaseURL
        case "takeOverURL": takeOverURL
        case "back": back
        default: nil
        }
    }
}
