import Foundation

/// Who is on call when: the rotation's shifts with the overrides laid over them. Pure and
/// computed on demand, so pages, the calendar feed, the watcher and the hand-offs agree.
public struct OnCallSchedule: Sendable {
    public let rotation: Rotation
    /// Oldest first: a later one wins where two overlap.
    public let overrides: [RotationOverride]

    /// A stretch of time one person is on call, within one rotation shift.
    public struct Stretch: Sendable, Equatable {
        public let member: StaffMember
        public let startsAt: Date
        public let endsAt: Date
        /// The rotation shift it falls in.
        public let shiftIndex: Int
        /// The override that put `member` here; `nil` when it is the rotation's turn.
        public let overrideID: Int64?

        public func contains(_ instant: Date) -> Bool { startsAt <= instant && instant < endsAt }
    }

    public init(rotation: Rotation, overrides: [RotationOverride]) {
        self.rotation = rotation
        self.overrides = overrides.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Who is on call at `instant`; `nil` before the rotation starts.
    public func member(at instant: Date) -> StaffMember? {
        if let cover = override(at: instant) { return cover.staff }
        return rotation.shiftIndex(at: instant).map(rotation.member(ofShift:))
    }

    /// The override in force at `instant`, the latest added winning.
    public func override(at instant: Date) -> RotationOverride? {
        overrides.last { $0.covers(instant) }
    }

    /// `[from, to)` cut into stretches, each one person within one rotation shift; the time
    /// before the rotation starts has none.
    public func stretches(from: Date, to: Date) -> [Stretch] {
        let first = rotation.start(ofShift: 0)
        let from = max(from, first)
        guard from < to, let firstIndex = rotation.shiftIndex(at: from) else { return [] }
        var cuts: Set<Date> = [from, to]
        var index = firstIndex + 1
        while case let start = rotation.start(ofShift: index), start < to {
            cuts.insert(start)
            index += 1
        }
        for cover in overrides {
            if cover.startsAt > from, cover.startsAt < to { cuts.insert(cover.startsAt) }
            if cover.endsAt > from, cover.endsAt < to { cuts.insert(cover.endsAt) }
        }
        let ordered = cuts.sorted()
        var result: [Stretch] = []
        for (start, end) in zip(ordered, ordered.dropFirst()) {
            let shift = rotation.shiftIndex(at: start) ?? firstIndex
            let cover = override(at: start)
            let member = cover?.staff ?? rotation.member(ofShift: shift)
            if let last = result.last, last.member == member, last.shiftIndex == shift, last.overrideID == cover?.id {
                result[result.count - 1] = Stretch(member: member, startsAt: last.startsAt, endsAt: end, shiftIndex: shift, overrideID: cover?.id)
            } else {
                result.append(Stretch(member: member, startsAt: start, endsAt: end, shiftIndex: shift, overrideID: cover?.id))
            }
        }
        return result
    }

    /// A person's unbroken time on call: consecutive stretches of one member, joined.
    public struct Turn: Sendable, Equatable {
        public let member: StaffMember
        public let startsAt: Date
        public let endsAt: Date

        public init(member: StaffMember, startsAt: Date, endsAt: Date) {
            self.member = member
            self.startsAt = startsAt
            self.endsAt = endsAt
        }
    }

    /// Who is on call at `instant` and until when, and who comes next and from when, looking
    /// at most `horizon` ahead (a one-person rotation has no "next").
    public func nowAndNext(at instant: Date, horizon: TimeInterval = 120 * 86_400) -> (now: Turn?, next: Turn?) {
        let turns = self.turns(from: instant, to: instant.addingTimeInterval(horizon))
        guard let first = turns.first else {
            // Before the rotation starts: nobody now; the first turn is next.
            let start = rotation.start(ofShift: 0)
            guard start > instant else { return (nil, nil) }
            let upcoming = self.turns(from: start, to: start.addingTimeInterval(horizon))
            return (nil, upcoming.first)
        }
        guard first.startsAt <= instant else { return (nil, first) }
        return (first, turns.dropFirst().first)
    }

    /// Stretches of `[from, to)` joined into turns: a new turn starts when the person changes.
    public func turns(from: Date, to: Date) -> [Turn] {
        var turns: [Turn] = []
        for stretch in stretches(from: from, to: to) {
            if let last = turns.last, last.member == stretch.member, last.endsAt == stretch.startsAt {
                turns[turns.count - 1] = Turn(member: last.member, startsAt: last.startsAt, endsAt: stretch.endsAt)
            } else {
                turns.append(Turn(member: stretch.member, startsAt: stretch.startsAt, endsAt: stretch.endsAt))
            }
        }
        return turns
    }

    /// The whole turn under way at `instant`, from when it really began (`nowAndNext` cuts it
    /// at the instant asked about); `nil` when nobody is on call then.
    public func turn(at instant: Date) -> Turn? {
        let from = instant.addingTimeInterval(-Double(Rotation.maxShiftDays + 1) * 86_400)
        return turns(from: from, to: instant.addingTimeInterval(1)).last { $0.startsAt <= instant }.map { turn in
            let rest = nowAndNext(at: instant).now
            return Turn(member: turn.member, startsAt: turn.startsAt, endsAt: rest?.endsAt ?? turn.endsAt)
        }
    }

    /// A hand-off: the moment the person on call changes, whether the rotation's turn or an
    /// override changes it. `outgoing` ends and `incoming` begins at `at`; who and when is its
    /// identity, never a shift number, so a rotation change cannot make two hand-offs one.
    public struct Handoff: Sendable, Equatable {
        public let outgoing: Turn
        public let incoming: Turn
        public var at: Date { incoming.startsAt }
    }

    /// The latest hand-off at or before `instant`, looking back at most `lookback`.
    public func latestHandoff(atOrBefore instant: Date, lookback: TimeInterval) -> Handoff? {
        // Reach a longest shift further back, so the outgoing turn's start is its real start.
        let from = instant.addingTimeInterval(-lookback - Double(Rotation.maxShiftDays + 1) * 86_400)
        let turns = self.turns(from: from, to: instant.addingTimeInterval(1))
        guard let index = turns.indices.last(where: { $0 > 0 && turns[$0].startsAt <= instant }),
            turns[index].startsAt >= instant.addingTimeInterval(-lookback)
        else { return nil }
        return Handoff(outgoing: turns[index - 1], incoming: turns[index])
    }

    /// The next hand-off after `instant`: from whoever is on call then to the next person.
    /// `nil` before the rotation starts, and when nobody else takes over within `horizon`;
    /// the outgoing turn is cut at `instant`.
    public func nextHandoff(after instant: Date, horizon: TimeInterval = 120 * 86_400) -> Handoff? {
        let (now, next) = nowAndNext(at: instant, horizon: horizon)
        guard let now, let next else { return nil }
        return Handoff(outgoing: now, incoming: next)
    }
}
