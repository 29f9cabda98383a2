import Foundation

/// Counts per bin, as vertical bars with the bin's name underneath: how old the waiting items are.
enum Histogram {
    static let width = ChartFrame.wide.width

    /// On a narrow frame the bin names take two staggered rows, so neighbours never touch.
    static func svg(
        id: String, title: String, description: String, bins: [(label: String, count: Int)], color: String, emptyMessage: String,
        frame: ChartFrame = .wide
    ) -> String {
        let width = frame.width
        let id = id + frame.idSuffix
        let height = frame.isNarrow ? 250.0 : 240.0
        var svg = SVGWriter(width: width, height: height)
        guard bins.contains(where: { $0.count > 0 }) else {
            svg.message(emptyMessage)
            return svg.document(id: id, title: title, description: description)
        }
        let plot = PlotArea(left: frame.isNarrow ? 32 : 48, top: 20, right: width - (frame.isNarrow ? 14 : 16), bottom: height - (frame.isNarrow ? 44 : 34))
        let scale = NiceScale(maximum: Double(bins.map(\.count).max() ?? 0), targetTicks: 4, integers: true)
        ValueAxis.draw(scale, in: plot, on: &svg)
        let band = plot.width / Double(bins.count)
        for (index, bin) in bins.enumerated() {
            let x = plot.left + Double(index) * band
            let top = scale.position(Double(bin.count), from: plot.bottom, to: plot.top)
            svg.rect(x: x + band * 0.1, y: top, width: band * 0.8, height: plot.bottom - top, fill: color, title: "\(bin.label): \(bin.count)")
            if bin.count > 0 { svg.text(String(bin.count), x: x + band / 2, y: top - 5, anchor: .middle, size: 12, weight: "600") }
            let row = frame.isNarrow && index % 2 == 1 ? 1.0 : 0.0
            svg.text(bin.label, x: x + band / 2, y: plot.bottom + 18 + row * 16, anchor: .middle, size: 11, fill: ChartPalette.muted)
        }
        return svg.document(id: id, title: title, description: description)
    }
}
