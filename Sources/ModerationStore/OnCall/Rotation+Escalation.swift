import Foundation

extension Rotation {
    /// Whom an episode nobody acknowledged goes to next: the member after `lastTold` in the
    /// rotation's order (after the member whose shift it is at `instant` when `lastTold` only
    /// covers by an override), skipping `lastTold`; `nil` once it would wrap back to `firstTold`,
    /// so nobody is asked twice.
    public func escalation(after lastTold: Int, firstTold: Int, at instant: Date) -> StaffMember? {
        let count = members.count
        let start: Int
        if let position = members.firstIndex(where: { $0.id == lastTold }) {
            start = position
        } else {
            let onShift = shiftIndex(at: instant).map(member(ofShift:)) ?? members[0]
            start = (members.firstIndex(of: onShift) ?? 0) - 1
        }
        for step in 1...count {
            let candidate = members[((start + step) % count + count) % count]
            if candidate.id == firstTold { return nil }
            if candidate.id == lastTold { continue }
            return candidate
        }
        return nil
    }
}
