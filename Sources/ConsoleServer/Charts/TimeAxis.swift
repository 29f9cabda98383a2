import Foundation

/// A time axis whose ticks and labels follow the span: days for a fortnight, weeks for a
/// quarter, months for two years, years beyond.
struct TimeAxis {
    let start: Date
    let end: Date
    let ticks: [(date: Date, label: String)]

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
        calendar.locale = Locale(identifier: "en_GB")
        return calendar
    }()

    private enum Step {
        case days(Int), months(Int), years(Int)
    }

    init(start: Date, end: Date, maximumTicks: Int = 8) {
        let end = max(end, start.addingTimeInterval(86_400))
        self.start = start
        self.end = end
        let days = end.timeIntervalSince(start) / 86_400
        let steps: [Step] = [
            .days(1), .days(2), .days(7), .days(14), .months(1), .months(2), .months(3), .months(6), .years(1), .years(2), .years(5), .years(10),
        ]
        let step =
            steps.first { step in
                switch step {
                case .days(let n): days / Double(n) <= Double(maximumTicks)
                case .months(let n): days / (30.4 * Double(n)) <= Double(maximumTicks)
                case .years(let n): days / (365.25 * Double(n)) <= Double(maximumTicks)
                }
            } ?? .years(10)
        ticks = Self.ticks(
            from: start, to: end, step: step, spansYears: Self.calendar.component(.year, from: start) != Self.calendar.component(.year, from: end))
    }

    private static func ticks(from start: Date, to end: Date, step: Step, spansYears: Bool) -> [(date: Date, label: String)] {
        let calendar = Self.calendar
        var date: Date
        let add: (Date) -> Date?
        let label: (Date) -> String
        func format(_ pattern: String) -> (Date) -> String {
            let formatter = DateFormatter()
            formatter.calendar = calendar
            formatter.timeZone = calendar.timeZone
            formatter.locale = calendar.locale
            formatter.dateFormat = pattern
            return { formatter.string(from: $0) }
        }
        switch step {
        case .days(let n):
            date = calendar.startOfDay(for: start)
            if n == 7 || n == 14 {
                // Weeks start on Monday.
                let weekday = calendar.component(.weekday, from: date)
                date = calendar.date(byAdding: .day, value: (9 - weekday) % 7, to: date) ?? date
            }
            add = { calendar.date(byAdding: .day, value: n, to: $0) }
            label = format(spansYears && n >= 7 ? "d MMM yy" : "d MMM")
        case .months(let n):
            var components = calendar.dateComponents([.year, .month], from: start)
            components.day = 1
            date = calendar.date(from: components) ?? start
            while (calendar.component(.month, from: date) - 1) % n != 0 {
                date = calendar.date(byAdding: .month, value: 1, to: date) ?? date
            }
            add = { calendar.date(byAdding: .month, value: n, to: $0) }
            let month = format("MMM")
            let monthYear = format("MMM yyyy")
            label = { calendar.component(.month, from: $0) == 1 || n >= 6 ? monthYear($0) : month($0) }
        case .years(let n):
            var year = calendar.component(.year, from: start)
            year += (n - year % n) % n
            date = calendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? start
            add = { calendar.date(byAdding: .year, value: n, to: $0) }
            label = format("yyyy")
        }
        var ticks: [(Date, String)] = []
        while date < start, let next = add(date) { date = next }
        while date <= end, ticks.count < 40 {
            ticks.append((date, label(date)))
            guard let next = add(date) else { break }
            date = next
        }
        // Month ticks after the first January of the axis show the month alone; name the
        // year on the first tick too, so the axis never leaves it unsaid.
        if case .months(let n) = step, n < 6, let first = ticks.first, calendar.component(.month, from: first.0) != 1 {
            ticks[0].1 = format("MMM yyyy")(first.0)
        }
        return ticks
    }

    func position(_ date: Date, from: Double, to: Double) -> Double {
        from + date.timeIntervalSince(start) / end.timeIntervalSince(start) * (to - from)
    }
}
