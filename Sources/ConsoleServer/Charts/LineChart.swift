import Foundation
import ModerationStore

/// One line of a line chart: points in time order.
struct LineSeries {
    let name: String
    let points: [(date: Date, value: Double)]
    var dashed = false
}

/// Values over time as lines (optionally with the first filled as an area), on a time
/// axis that follows the span and a value axis with nice ticks.
enum LineChart {
    static let width = ChartFrame.wide.width

    /// A line needs two moments: with one, the chart says so in words (`tooFewMessage`)
    /// instead of drawing a lone dot on an axis of its own making.
    static func svg(
        id: String, title: String, description: String, series: [LineSeries], area: Bool = false, integers: Bool = true,
        unit: String = "", emptyMessage: String = "No data yet", tooFewMessage: String = "Too little data for a line yet: one point so far",
        frame: ChartFrame = .wide
    ) -> String {
        let width = frame.width
        let id = id + frame.idSuffix
        let height = frame.isNarrow ? 240.0 : series.count > 1 ? 300.0 : 280.0
        var svg = SVGWriter(width: width, height: height)
        let points = series.flatMap(\.points)
        guard let earliest = points.map(\.date).min(), let latest = points.map(\.date).max() else {
            svg.message(emptyMessage)
            return svg.document(id: id, title: title, description: description)
        }
        guard earliest != latest else {
            svg.message(tooFewMessage)
            return svg.document(id: id, title: title, description: description)
        }
        let plot = PlotArea(left: frame.isNarrow ? 44 : 56, top: series.count > 1 ? 40 : 16, right: width - (frame.isNarrow ? 12 : 20), bottom: height - 34)
        let time = TimeAxis(start: earliest, end: latest, maximumTicks: frame.maximumTimeTicks)
        let scale = NiceScale(maximum: points.map(\.value).max() ?? 0, integers: integers)
        ValueAxis.draw(scale, in: plot, on: &svg, unit: unit)
        for tick in time.ticks {
            let x = time.position(tick.date, from: plot.left, to: plot.right)
            svg.line(x1: x, y1: plot.bottom, x2: x, y2: plot.bottom + 5, stroke: ChartPalette.axis)
            svg.text(tick.label, x: x, y: plot.bottom + 20, anchor: .middle, size: 11, fill: ChartPalette.muted)
        }
        if series.count > 1 { Legend.draw(series.enumerated().map { ($1.name, ChartPalette.color($0), $1.dashed) }, at: plot.left, y: 16, on: &svg) }
        for (index, line) in series.enumerated() {
            let color = ChartPalette.color(index)
            let sorted = line.points.sorted { $0.date < $1.date }
            let coordinates = sorted.map {
                (time.position($0.date, from: plot.left, to: plot.right), scale.position($0.value, from: plot.bottom, to: plot.top))
            }
            if area && index == 0, coordinates.count > 1 {
                svg.path(coordinates, stroke: "none", width: 0, fill: color + "33", close: plot.bottom)
            }
            svg.path(coordinates, stroke: color, width: 2.5, dashed: line.dashed)
            if sorted.count <= 40 {
                for (point, coordinate) in zip(sorted, coordinates) {
                    svg.circle(
                        x: coordinate.0, y: coordinate.1, radius: 3.5, fill: color,
                        title: "\(line.name), \(ISOTime.day(point.date)): \(NiceScale.label(point.value))\(unit)")
                }
            }
        }
        if let last = series.first?.points.max(by: { $0.date < $1.date }), series.count == 1 {
            // The latest value, written at the end of the line: the number people look for first.
            let x = time.position(last.date, from: plot.left, to: plot.right)
            let y = scale.position(last.value, from: plot.bottom, to: plot.top)
            svg.text(NiceScale.label(last.value) + unit, x: min(x, plot.right - 4), y: max(y - 10, plot.top + 10), anchor: .end, size: 12, weight: "600")
        }
        return svg.document(id: id, title: title, description: description)
    }
}

/// Horizontal gridlines and labels of a value axis.
enum ValueAxis {
    static func draw(_ scale: NiceScale, in plot: PlotArea, on svg: inout SVGWriter, unit: String = "") {
        for tick in scale.ticks {
            let y = scale.position(tick, from: plot.bottom, to: plot.top)
            svg.line(x1: plot.left, y1: y, x2: plot.right, y2: y, stroke: tick == scale.lower ? ChartPalette.axis : ChartPalette.grid)
            svg.text(NiceScale.label(tick) + unit, x: plot.left - 8, y: y + 4, anchor: .end, size: 11, fill: ChartPalette.muted)
        }
    }
}

/// A row of swatches with names.
enum Legend {
    static func draw(_ entries: [(name: String, color: String, dashed: Bool)], at left: Double, y: Double, on svg: inout SVGWriter) {
        var x = left
        for entry in entries {
            if entry.dashed {
                svg.line(x1: x, y1: y - 4, x2: x + 16, y2: y - 4, stroke: entry.color, width: 3, dashed: true)
            } else {
                svg.rect(x: x, y: y - 10, width: 12, height: 12, fill: entry.color)
            }
            svg.text(entry.name, x: x + 20, y: y, size: 12)
            x += 20 + Double(entry.name.count) * 6.6 + 18
        }
    }
}
