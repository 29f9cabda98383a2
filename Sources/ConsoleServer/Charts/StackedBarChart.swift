import Foundation
import ModerationStore

/// Bars per day, each split by kind: decisions per day, stacked.
enum StackedBarChart {
    static let width = ChartFrame.wide.width

    /// `days` in order; `series[i].values[j]` is kind i on day j.
    static func svg(
        id: String, title: String, description: String, days: [Date], series: [(name: String, values: [Double])],
        emptyMessage: String = "No decisions in this period", frame: ChartFrame = .wide
    ) -> String {
        let width = frame.width
        let id = id + frame.idSuffix
        let height = 320.0
        var svg = SVGWriter(width: width, height: height)
        let totals = days.indices.map { day in series.reduce(0) { $0 + ($1.values.indices.contains(day) ? $1.values[day] : 0) } }
        guard !days.isEmpty, let highest = totals.max(), highest > 0 else {
            svg.message(emptyMessage)
            return svg.document(id: id, title: title, description: description)
        }
        let shown = series.enumerated().filter { $0.element.values.contains { $0 > 0 } }
        let legendRows = Legend.rows(shown.map(\.element.name), width: width - 56)
        let plot = PlotArea(left: 48, top: 14 + 20 * Double(legendRows.count), right: width - 16, bottom: height - 34)
        var legendY = 16.0
        for row in legendRows {
            Legend.draw(row.map { name in (name, ChartPalette.color(series.firstIndex { $0.name == name } ?? 0), false) }, at: plot.left, y: legendY, on: &svg)
            legendY += 20
        }
        let scale = NiceScale(maximum: highest, integers: true)
        ValueAxis.draw(scale, in: plot, on: &svg)
        let band = plot.width / Double(days.count)
        let barWidth = max(1, band * 0.72)
        for (dayIndex, day) in days.enumerated() {
            var base = 0.0
            let x = plot.left + Double(dayIndex) * band + (band - barWidth) / 2
            for (kindIndex, kind) in series.enumerated() {
                let value = kind.values.indices.contains(dayIndex) ? kind.values[dayIndex] : 0
                guard value > 0 else { continue }
                let y0 = scale.position(base, from: plot.bottom, to: plot.top)
                let y1 = scale.position(base + value, from: plot.bottom, to: plot.top)
                svg.rect(
                    x: x, y: y1, width: barWidth, height: y0 - y1, fill: ChartPalette.color(kindIndex),
                    title: "\(ISOTime.day(day)), \(kind.name.lowercased()): \(NiceScale.label(value))")
                base += value
            }
            // A month of bars has room for each day's total; a quarter does not (the table has them).
            if days.count <= (frame.isNarrow ? 14 : 31), totals[dayIndex] > 0 {
                let top = scale.position(totals[dayIndex], from: plot.bottom, to: plot.top)
                svg.text(NiceScale.label(totals[dayIndex]), x: x + barWidth / 2, y: top - 4, anchor: .middle, size: 10, weight: "600")
            }
        }
        // Date labels on the bars the time axis picks, so they follow the period's length.
        let axis = TimeAxis(start: days[0], end: days[days.count - 1], maximumTicks: frame.maximumTimeTicks)
        for tick in axis.ticks {
            guard let index = days.firstIndex(where: { abs($0.timeIntervalSince(tick.date)) < 43_200 }) else { continue }
            let x = plot.left + (Double(index) + 0.5) * band
            svg.line(x1: x, y1: plot.bottom, x2: x, y2: plot.bottom + 5, stroke: ChartPalette.axis)
            svg.text(tick.label, x: x, y: plot.bottom + 20, anchor: .middle, size: 11, fill: ChartPalette.muted)
        }
        return svg.document(id: id, title: title, description: description)
    }
}

extension Legend {
    /// Names broken into rows that fit `width`.
    static func rows(_ names: [String], width: Double) -> [[String]] {
        var rows: [[String]] = [[]]
        var used = 0.0
        for name in names {
            let needed = 20 + Double(name.count) * 6.6 + 18
            if used + needed > width, !(rows.last?.isEmpty ?? true) {
                rows.append([])
                used = 0
            }
            rows[rows.count - 1].append(name)
            used += needed
        }
        return rows
    }
}
