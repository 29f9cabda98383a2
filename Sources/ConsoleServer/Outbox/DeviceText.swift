import Foundation
import ModerationStore
import Mustache

/// How device tokens are shown: enough to tell them apart, not the whole secret-ish string.
enum DeviceText {
    static func short(_ token: String) -> String {
        token.count > 12 ? "\(token.prefix(8))…\(token.suffix(4))" : token
    }
}
