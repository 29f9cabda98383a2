import Foundation
import ModerationStore
import Mustache

/// Waiting times in words: "45 min", "6.5 h", "3.2 d".
enum DurationText {
    static func hours(_ seconds: Double) -> String {
        switch seconds {
        case ..<3_600: "\(Int((seconds / 60).rounded())) min"
        case ..<(86_400 * 2): String(format: "%.1f h", seconds / 3_600)
        default: String(format: "%.1f d", seconds / 86_400)
        }
    }
}
