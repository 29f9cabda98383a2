import BookCornersAPI
import Foundation
import ModerationStore

/// Everything the statistics page draws, computed from typed inputs so it can be tested
/// without a backend: Book Corners' own statistics, the console's decision records, and
/// when each item still waiting was submitted.
struct StatisticsReport {
    /// The three moderation queues, in the order the console names them.
    static let queues: [(key: String, label: String)] = [("library", "Library submissions"), ("report", "Reports"), ("photo", "Photos")]
    /// Kinds of decision, in stacking order.
    static let kinds: [(action: String, label: String, one: String)] = [
        ("library.approve", "Libraries approved", "library approved"), ("library.reject", "Libraries rejected", "library rejected"),
        ("report.resolve", "Reports resolved", "report resolved"), ("report.dismiss", "Reports dismissed", "report dismissed"),
        ("photo.approve", "Photos approved", "photo approved"), ("photo.reject", "Photos rejected", "photo rejected"),
    ]
    /// The series of decisions made outside the console, after `kinds`.
    static let outside = (label: "Outside the console", one: "change made outside the console", many: "changes made outside the console")
    static let ageBins: [(label: String, below: TimeInterval)] = [
        ("< 1 day", 86_400), ("1–3 days", 3 * 86_400), ("3–7 days", 7 * 86_400), ("1–2 weeks", 14 * 86_400),
        ("2–4 weeks", 28 * 86_400), ("1–3 months", 91 * 86_400), ("> 3 months", .infinity),
    ]

    /// What waits in one queue. A long queue is known by its newest and its oldest items
    /// only (the backend lists newest first, a page at a time), so the long tail, the part
    /// that says a queue is out of hand, is always drawn.
    struct Waiting {
        let queue: String
        let newest: [Date]
        /// The oldest items, when the queue is longer than what `newest` holds; else empty.
        let oldest: [Date]
        /// How many wait in all.
        let total: Int

        var submitted: [Date] { newest + oldest }
        var sampleNote: String {
            guard submitted.count < total else { return "" }
            return oldest.isEmpty
                ? " (the \(newest.count) newest of \(total))"
                : " (the \(newest.count) newest and the \(oldest.count) oldest of \(total))"
        }
    }

    let community: [Chart]
    let moderation: [Chart]
    let waitingNow: [Chart]

    var charts: [Chart] { community + moderation + waitingNow }

    /// `decisions` are those of the last `days` days; `history` reaches further back for
    /// the weekly waiting times, which need more than a few weeks to show a trend.
    init(
        statistics: Statistics?, decisions: [DecisionRecord], history: [DecisionRecord], waiting: [Waiting], days: Int, now: Date,
        csvHref: (String) -> String
    ) {
        community = statistics.map { Self.communityCharts($0, csvHref: csvHref) } ?? []
        // Changes made outside the console count too, as their own series, so the charts add up.
        let applied = decisions.filter(\.decided)
        let appliedHistory = history.filter(\.decided)
        moderation =
            [Self.decisionsPerDay(applied, days: days, now: now, csvHref: csvHref)]
            + Self.queues.map { Self.timeToDecision(appliedHistory, queue: $0, csvHref: csvHref) }
            + [Self.perStaff(applied, days: days, csvHref: csvHref)]
        waitingNow = waiting.map { Self.ageHistogram($0, now: now, csvHref: csvHref) }
    }

    // MARK: Book Corners

    private static func communityCharts(_ statistics: Statistics, csvHref: (String) -> String) -> [Chart] {
        let monthly = statistics.granularity == "monthly"
        let points = statistics.cumulativeSeries.compactMap { point in
            Self.periodStart(point.period).map { (date: $0, value: Double(point.cumulativeCount)) }
        }.sorted { $0.date < $1.date }
        let growthDescription =
            points.last.map { last in
                "Approved libraries over time, counted \(monthly ? "per month" : "per day"): \(Int(last.value)) by \(ISOTime.day(last.date))"
                    + (points.first.map { ", from \(Int($0.value)) on \(ISOTime.day($0.date))." } ?? ".")
            } ?? "No approved libraries yet."
        let growth = Chart(
            id: "growth", title: "Approved libraries, cumulative", description: growthDescription,
            svg: {
                LineChart.svg(
                    id: "growth", title: "Approved libraries, cumulative", description: growthDescription,
                    series: [LineSeries(name: "Approved libraries", points: points)], area: true,
                    tooFewMessage: "Only one \(monthly ? "month" : "day") of data so far", frame: $0)
            },
            table: ChartTable(
                columns: [monthly ? "Month" : "Day", "Approved libraries (cumulative)"],
                rows: statistics.cumulativeSeries.map { [$0.period, String($0.cumulativeCount)] }),
            csvHref: csvHref("growth"))
        let countries = statistics.topCountries
        let countriesDescription =
            countries.isEmpty
            ? "No countries yet."
            : "Countries with the most approved libraries: " + countries.prefix(5).map { "\($0.countryName) \($0.count)" }.joined(separator: ", ") + "."
        let top = Chart(
            id: "countries", title: "Top countries", description: countriesDescription,
            svg: { frame in
                BarChart.svg(
                    id: "countries", title: "Top countries", description: countriesDescription,
                    bars: countries.map { (label: "\($0.flagEmoji) \($0.countryName)", value: Double($0.count)) }, frame: frame)
            },
            table: ChartTable(
                columns: ["Country code", "Country", "Approved libraries"],
                rows: countries.map { [$0.countryCode, $0.countryName, String($0.count)] }),
            csvHref: csvHref("countries"))
        let withPhoto = statistics.totalWithImage
        let approved = statistics.totalApproved
        let photoDescription =
            approved == 0
            ? "No approved libraries yet."
            : "\(withPhoto) of \(approved) approved libraries have a photo (\(Int((Double(withPhoto) * 100 / Double(approved)).rounded())) %)."
        let photos = Chart(
            id: "photos", title: "Approved libraries with a photo", description: photoDescription,
            svg: {
                ShareBar.svg(
                    id: "photos", title: "Approved libraries with a photo", description: photoDescription,
                    part: withPhoto, whole: approved, partLabel: "with a photo", restLabel: "without", frame: $0)
            },
            table: ChartTable(
                columns: ["Measure", "Libraries"],
                rows: [["Approved", String(approved)], ["With a photo", String(withPhoto)], ["Without a photo", String(max(approved - withPhoto, 0))]]),
            csvHref: csvHref("photos"))
        return [growth, top, photos]
    }

    /// `2026-11-22` or `2026-11` as the first instant of that day or month, UTC.
    static func periodStart(_ period: String) -> Date? {
        ISOTime.parseDay(period) ?? ISOTime.parseDay(period + "-01")
    }

    // MARK: Moderation

    private static func decisionsPerDay(_ decisions: [DecisionRecord], days: Int, now: Date, csvHref: (String) -> String) -> Chart {
        let today = ISOTime.parseDay(ISOTime.day(now)) ?? now
        let dayStarts = (0..<days).reversed().map { today.addingTimeInterval(-86_400 * Double($0)) }
        let labels = kinds.map(\.label) + [outside.label]
        var counts = Array(repeating: Array(repeating: 0.0, count: days), count: labels.count)
        for decision in decisions {
            guard let kind = decision.isObserved ? kinds.count : kinds.firstIndex(where: { $0.action == decision.action }) else { continue }
            let index = days - 1 - Int(today.timeIntervalSince(ISOTime.parseDay(ISOTime.day(decision.recordedAt)) ?? today) / 86_400)
            if dayStarts.indices.contains(index) { counts[kind][index] += 1 }
        }
        let perKind = counts.map { $0.reduce(0, +) }
        let perDay = dayStarts.indices.map { day in counts.reduce(0.0) { $0 + $1[day] } }
        let total = perKind.reduce(0, +)
        var description = "No decisions in the last \(days) days."
        if total > 0, let busiest = perDay.indices.max(by: { perDay[$0] < perDay[$1] }) {
            let names = kinds.map { (one: $0.one, many: $0.label.lowercased()) } + [(one: outside.one, many: outside.many)]
            let kindsText = names.indices.filter { perKind[$0] > 0 }.map { CountText.of(Int(perKind[$0]), names[$0].one, names[$0].many) }
            description =
                "\(CountText.of(Int(total), "decision", "decisions")) in the last \(days) days: \(kindsText.joined(separator: ", ")). "
                + "Busiest day \(ISOTime.day(dayStarts[busiest])) with \(Int(perDay[busiest]))."
        }
        let title = "Decisions per day, last \(days) days"
        return Chart(
            id: "decisions", title: title, description: description,
            svg: { frame in
                StackedBarChart.svg(
                    id: "decisions", title: title, description: description, days: dayStarts,
                    series: labels.indices.map { (name: labels[$0], values: counts[$0]) }, frame: frame)
            },
            table: ChartTable(
                columns: ["Day"] + labels + ["Total"],
                rows: dayStarts.indices.map { day in
                    [ISOTime.day(dayStarts[day])] + labels.indices.map { String(Int(counts[$0][day])) } + [String(Int(perDay[day]))]
                }),
            csvHref: csvHref("decisions"))
    }

    /// Median and 90th percentile wait per week (weeks start on Monday), in days or hours.
    private static func timeToDecision(_ decisions: [DecisionRecord], queue: (key: String, label: String), csvHref: (String) -> String) -> Chart {
        var weeks: [Date: [Double]] = [:]
        for decision in decisions where decision.queue == queue.key {
            guard let waited = decision.secondsWaited, let week = weekStart(decision.recordedAt) else { continue }
            weeks[week, default: []].append(waited)
        }
        let rows = weeks.keys.sorted().compactMap { week -> (week: Date, count: Int, median: Double, p90: Double)? in
            guard let sorted = weeks[week]?.sorted(), !sorted.isEmpty else { return nil }
            return (week, sorted.count, AuditSummary.percentile(0.5, of: sorted), AuditSummary.percentile(0.9, of: sorted))
        }
        let inDays = (rows.map(\.p90).max() ?? 0) > 2 * 86_400
        let unit = inDays ? 86_400.0 : 3_600.0
        let unitName = inDays ? "days" : "hours"
        let id = "wait-\(queue.key)"
        let title = "\(queue.label): time from submission to decision"
        let timesOutside = decisions.contains { $0.queue == queue.key && $0.isObserved && $0.secondsWaited != nil }
        let description =
            rows.last.map { last in
                "Per week, in \(unitName). Week of \(ISOTime.day(last.week)): median \(NiceScale.label((last.median / unit * 10).rounded() / 10)), "
                    + "90th percentile \(NiceScale.label((last.p90 / unit * 10).rounded() / 10)) over \(CountText.of(last.count, "decision", "decisions"))."
                    + (timesOutside ? " Changes made outside the console are timed at the middle of the window in which they happened." : "")
            } ?? "No decisions with a known submission time yet."
        return Chart(
            id: id, title: title, description: description,
            svg: { frame in
                LineChart.svg(
                    id: id, title: title, description: description,
                    series: [
                        LineSeries(name: "Median", points: rows.map { ($0.week, $0.median / unit) }),
                        LineSeries(name: "90th percentile", points: rows.map { ($0.week, $0.p90 / unit) }, dashed: true),
                    ],
                    integers: false, unit: inDays ? " d" : " h", emptyMessage: "No decisions yet",
                    tooFewMessage: "One week of decisions so far: the table has its numbers", frame: frame)
            },
            table: ChartTable(
                columns: ["Week starting", "Decisions", "Median (\(unitName))", "90th percentile (\(unitName))"],
                rows: rows.map { [ISOTime.day($0.week), String($0.count), String(format: "%.1f", $0.median / unit), String(format: "%.1f", $0.p90 / unit)] }),
            csvHref: csvHref(id))
    }

    static func weekStart(_ date: Date) -> Date? {
        guard let day = ISOTime.parseDay(ISOTime.day(date)) else { return nil }
        // 1970-01-01 was a Thursday: days since a Monday are (days + 3) mod 7.
        let days = Int((day.timeIntervalSince1970 / 86_400).rounded(.down))
        return day.addingTimeInterval(-86_400 * Double(((days + 3) % 7 + 7) % 7))
    }

    static func perStaff(_ decisions: [DecisionRecord], days: Int, csvHref: (String) -> String) -> Chart {
        let counts = Dictionary(grouping: decisions, by: \.actorUsername).map { (name: $0.key, count: $0.value.count) }
            .sorted { ($0.count, $1.name) > ($1.count, $0.name) }
        let title = "Decisions per staff member, last \(days) days"
        let description =
            counts.isEmpty
            ? "No decisions in the last \(days) days."
            : counts.prefix(5).map { "\($0.name): \(CountText.of($0.count, "decision", "decisions"))" }.joined(separator: ", ") + "."
        return Chart(
            id: "staff", title: title, description: description,
            svg: { frame in
                BarChart.svg(
                    id: "staff", title: title, description: description, bars: counts.map { ($0.name, Double($0.count)) },
                    emptyMessage: "No decisions in this period", frame: frame)
            },
            table: ChartTable(columns: ["Staff member", "Decisions"], rows: counts.map { [$0.name, String($0.count)] }),
            csvHref: csvHref("staff"))
    }

    // MARK: Waiting now

    private static func ageHistogram(_ waiting: Waiting, now: Date, csvHref: (String) -> String) -> Chart {
        var counts = Array(repeating: 0, count: ageBins.count)
        for submitted in waiting.submitted {
            let age = now.timeIntervalSince(submitted)
            counts[ageBins.firstIndex { age < $0.below } ?? ageBins.count - 1] += 1
        }
        let label = queues.first { $0.key == waiting.queue }?.label ?? waiting.queue
        let id = "age-\(waiting.queue)"
        let title = "\(label) waiting now, by age"
        let description =
            waiting.submitted.isEmpty
            ? "Nothing waiting."
            : "\(waiting.total) waiting\(waiting.sampleNote): "
                + ageBins.indices.filter { counts[$0] > 0 }.map { "\(counts[$0]) \(ageBins[$0].label)" }.joined(separator: ", ") + "."
        let color = ChartPalette.color(queues.firstIndex { $0.key == waiting.queue } ?? 0)
        return Chart(
            id: id, title: title, description: description,
            svg: { frame in
                Histogram.svg(
                    id: id, title: title, description: description, bins: ageBins.indices.map { (ageBins[$0].label, counts[$0]) },
                    color: color, emptyMessage: "Nothing waiting", frame: frame)
            },
            table: ChartTable(columns: ["Age", "Items"], rows: ageBins.indices.map { [ageBins[$0].label, String(counts[$0])] }),
            csvHref: csvHref(id))
    }
}
