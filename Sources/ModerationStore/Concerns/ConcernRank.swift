/// Where a waiting library stands in the "needs a look first" order: any strong reason first,
/// then reasons worth a look, then none (the raw values sort in that order).
public enum ConcernRank: Int, Sendable, Comparable {
    case strong = 0
    case worthALook = 1
    case none = 2

    /// The rank of a library with reasons of these strengths ("strong", "worth-a-look").
    public init(strengths: some Sequence<String>) {
        var rank = ConcernRank.none
        for strength in strengths { rank = min(rank, strength == "strong" ? .strong : .worthALook) }
        self = rank
    }

    public static func < (lhs: ConcernRank, rhs: ConcernRank) -> Bool { lhs.rawValue < rhs.rawValue }
}
