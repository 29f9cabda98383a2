import Foundation

/// A value axis from zero (or below) to a round number, with ticks on 1-2-5 steps, so
/// labels read 0, 20, 40 … rather than 0, 17.3, 34.6 ….
struct NiceScale: Equatable {
    let lower: Double
    let upper: Double
    let step: Double
    let ticks: [Double]

    /// Ticks covering `minimum…maximum`, about `targetTicks` of them; `integers` keeps
    /// steps whole (counts).
    init(minimum: Double = 0, maximum: Double, targetTicks: Int = 5, integers: Bool = false) {
        let low = min(minimum, maximum)
        var high = max(minimum, maximum)
        if high == low { high = low + (integers ? max(1, Double(targetTicks - 1)) : 1) }
        var step = Self.niceStep(for: (high - low) / Double(max(targetTicks - 1, 1)))
        if integers { step = max(step, 1) }
        let lower = (low / step).rounded(.down) * step
        let upper = (high / step).rounded(.up) * step
        let count = Int(((upper - lower) / step).rounded())
        self.lower = lower
        self.upper = upper
        self.step = step
        ticks = (0...count).map { lower + Double($0) * step }
    }

    /// 1, 2, 5 or 10 × 10ⁿ nearest to `rough` (Heckbert's rounding), so the axis ends
    /// close above the data instead of leaving an empty band.
    static func niceStep(for rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let fraction = rough / magnitude
        let nice: Double = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10
        return nice * magnitude
    }

    /// Where `value` falls between `from` (at `lower`) and `to` (at `upper`).
    func position(_ value: Double, from: Double, to: Double) -> Double {
        from + (value - lower) / (upper - lower) * (to - from)
    }

    /// "1,200", "0.5", "2.5k": short labels without trailing zeros.
    static func label(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 10_000 {
            let thousands = value / 1000
            return (thousands.rounded() == thousands ? String(Int(thousands)) : String(format: "%.1f", thousands)) + "k"
        }
        if value.rounded() == value { return String(Int(value)) }
        return String(format: "%g", (value * 1000).rounded() / 1000)
    }
}
