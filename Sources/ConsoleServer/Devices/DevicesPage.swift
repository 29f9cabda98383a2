import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The devices registered for pushes: each token's environment, state and last success.
struct DevicesPage: MustacheParent {
    struct Row: MustacheParent {
        let token: String
        let environment: String
        let state: String
        let stateLabel: String
        let lastSuccess: String
        let source: String
        let removeURL: String

        init(_ device: Device) {
            token = DeviceText.short(device.token)
            environment = device.environment.rawValue
            state = device.state.rawValue
            stateLabel =
                device.state == .active ? "Active" : Self.capitalized(device.stateText) + (device.disabledReason.isEmpty ? "" : " (\(device.disabledReason))")
            lastSuccess = device.lastSuccessAt.map(TimeText.utc) ?? "never"
            source = device.source == "import" ? "Book Corners" : "added here"
            removeURL = SiteURL.deviceRemove(device.id ?? 0).path
        }

        private static func capitalized(_ text: String) -> String {
            text.prefix(1).uppercased() + text.dropFirst()
        }

        func child(named key: String) -> Any? {
            switch key {
            case "token": token
            case "environment": environment
            case "state": state
            case "stateLabel": stateLabel
            case "lastSuccess": lastSuccess
            case "source": source
            case "removeURL": removeURL
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let devices: [Row]
    let isEmpty: Bool
    let userID: Int
    let problem: String
    let hasProblem: Bool
    let token: String
    let environments: [FilterOption]
    let addURL = SiteURL.devices.path

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "devices": devices
        case "isEmpty": isEmpty
        case "userID": userID
        case "problem": problem
        case "hasProblem": hasProblem
        case "token": token
        case "environments": environments
        case "addURL": addURL
        default: nil
        }
    }
}
