import ModerationStore

/// The three things staff do with a claim; each has one route per kind of item, since a
/// route has one dynamic segment.
enum ClaimRoute: CaseIterable, Sendable {
    case claim, release, takeOver

    func route(for kind: ModerationAction.TargetKind) -> SiteURL.Route {
        switch (self, kind) {
        case (.claim, .library): .libraryClaim
        case (.claim, .report): .reportClaim
        case (.claim, .photo): .photoClaim
        case (.release, .library): .libraryRelease
        case (.release, .report): .reportRelease
        case (.release, .photo): .photoRelease
        case (.takeOver, .library): .libraryTakeOver
        case (.takeOver, .report): .reportTakeOver
        case (.takeOver, .photo): .photoTakeOver
        }
    }
}
