import Foundation

/// Horizontal bars, one per labelled value, longest first as given: top countries,
/// decisions per staff member.
enum BarChart {
    static let width = ChartFrame.wide.width

    /// `labelsAbove` puts each label on its own line over its bar, the whole width: for labels
    /// longer than a column beside the bars can hold (a rejection's reason).
    static func svg(
        id: String, title: String, description: String, bars: [(label: String, value: Double)], emptyMessage: String = "No data yet",
        frame: ChartFrame = .wide, labelsAbove: Bool = false
    ) -> String {
        let width = frame.width
        let id = id + frame.idSuffix
        let rowHeight = labelsAbove ? 44.0 : 28.0
        let height = bars.isEmpty ? 120 : 30 + rowHeight * Double(bars.count) + 24
        var svg = SVGWriter(width: width, height: height)
        guard !bars.isEmpty, bars.contains(where: { $0.value > 0 }) else {
            svg.message(emptyMessage)
            return svg.document(id: id, title: title, description: description)
        }
        let labelWidth = labelsAbove ? 12 : min(frame.isNarrow ? 120 : 200, max(80, Double(bars.map(\.label.count).max() ?? 0) * 7.2 + 12))
        let plot = PlotArea(left: labelWidth, top: 12, right: width - (frame.isNarrow ? 40 : 56), bottom: height - 30)
        let scale = NiceScale(maximum: bars.map(\.value).max() ?? 0, integers: true)
        for tick in scale.ticks {
            let x = scale.position(tick, from: plot.left, to: plot.right)
            svg.line(x1: x, y1: plot.top, x2: x, y2: plot.bottom, stroke: tick == 0 ? ChartPalette.axis : ChartPalette.grid)
            svg.text(NiceScale.label(tick), x: x, y: plot.bottom + 18, anchor: .middle, size: 11, fill: ChartPalette.muted)
        }
        for (index, bar) in bars.enumerated() {
            let y = plot.top + Double(index) * rowHeight
            // A tiny value next to a huge one still shows as a sliver, never as nothing.
            let length = bar.value > 0 ? max(2, scale.position(bar.value, from: 0, to: plot.width)) : 0
            // The bar takes the row's lower 18 px when its label sits above it, else the row less 5 px each side.
            let barTop = labelsAbove ? y + rowHeight - 22 : y + 5
            let barHeight = labelsAbove ? 18 : rowHeight - 10
            if labelsAbove {
                svg.text(truncated(bar.label, to: Int((width - 24) / 7.2)), x: plot.left, y: y + 14, size: 12)
            } else {
                svg.text(truncated(bar.label, to: Int(labelWidth / 7.2)), x: plot.left - 8, y: y + rowHeight / 2 + 4, anchor: .end, size: 12)
            }
            svg.rect(
                x: plot.left, y: barTop, width: length, height: barHeight, fill: ChartPalette.color(0), title: "\(bar.label): \(NiceScale.label(bar.value))")
            svg.text(NiceScale.label(bar.value), x: plot.left + length + 6, y: barTop + barHeight / 2 + 4, size: 12, weight: "600")
        }
        return svg.document(id: id, title: title, description: description)
    }

    static func truncated(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(max(length - 1, 1))) + "…"
    }
}

/// One bar split in two: how much of a whole has something (approved libraries with a photo).
enum ShareBar {
    static let width = ChartFrame.wide.width

    static func svg(
        id: String, title: String, description: String, part: Int, whole: Int, partLabel: String, restLabel: String, frame: ChartFrame = .wide
    ) -> String {
        let width = frame.width
        let id = id + frame.idSuffix
        var svg = SVGWriter(width: width, height: 96)
        guard whole > 0 else {
            svg.message("No approved libraries yet")
            return svg.document(id: id, title: title, description: description)
        }
        let share = Double(min(part, whole)) / Double(whole)
        let left = 16.0, right = width - 16, top = 34.0, barHeight = 30.0
        let split = left + share * (right - left)
        svg.rect(x: left, y: top, width: split - left, height: barHeight, fill: ChartPalette.color(2), title: "\(partLabel): \(part)")
        svg.rect(x: split, y: top, width: right - split, height: barHeight, fill: ChartPalette.grid, title: "\(restLabel): \(whole - part)")
        let percent = Int((share * 100).rounded())
        svg.text("\(percent) % \(partLabel) (\(part) of \(whole))", x: left, y: 22, size: 13, weight: "600")
        svg.text("\(100 - percent) % \(restLabel)", x: right, y: top + barHeight + 20, anchor: .end, size: 12, fill: ChartPalette.muted)
        return svg.document(id: id, title: title, description: description)
    }
}
