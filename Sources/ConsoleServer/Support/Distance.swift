import Foundation

/// How distances read on pages.
enum Distance {
    /// "35 m", "1.2 km".
    static func text(_ metres: Double) -> String {
        metres < 1_000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1_000)
    }
}
