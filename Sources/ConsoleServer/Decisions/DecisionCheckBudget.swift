import ModerationStore

/// Where the check right before a decision takes its read from: the mirror's reserved share
/// of each scope's budget, counted in the database (`BackendBudget`), so decisions and the
/// sync of every process on it together never overspend a window.
protocol DecisionCheckBudget: Sendable {
    /// One read for a check in `scope`: counted when granted (the budget it is made under
    /// carries the ticket that pays for it); otherwise when to try again.
    func reserveDecisionCheck(_ scope: MirrorScope) async -> BudgetGrant
}

extension MirrorSync: DecisionCheckBudget {}

extension ModerationAction.TargetKind {
    /// The scope the check before a decision on this kind reads in: a library has a detail
    /// read; reports and photos are found in their lists.
    var decisionCheckScope: MirrorScope {
        switch self {
        case .library: .libraryDetail
        case .report: .reportList
        case .photo: .photoList
        }
    }
}
