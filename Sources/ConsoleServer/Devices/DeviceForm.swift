import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The add form of My devices.
struct DeviceForm: Decodable, Sendable, MustacheParent {
    var token: String?
    var environment: String?

    func child(named key: String) -> Any? {
        switch key {
        case "token": token
        case "environment": environment
        default: nil
        }
    }
}
