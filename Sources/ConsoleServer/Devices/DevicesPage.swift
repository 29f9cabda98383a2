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
        let lastSuccess: TeamTime
        let source: String
        let removeURL: String

        init(_ device: Device) {
            token = DeviceText.short(device.token)
            environment = device.environment.rawValue
            state = device.state.rawValue
            stateLabel = Self.words(for: device)
            lastSuccess = TeamTime(device.lastSuccessAt)
            source = device.source == "import" ? "Book Corners" : "added here"
            removeURL = SiteURL.deviceRemove(device.id ?? 0).path
        }

        /// The state as a staff member reads it: what Apple said in words, when on the team's
        /// clock, and what brings the device back. APNs' own codes stay in `console devices list`.
        static func words(for device: Device) -> String {
            let when = (device.disabledAt).map(TeamClock.stamp) ?? "a time not recorded"
            let environment = Self.environmentName(device.environment)
            switch device.state {
            case .active:
                return "Active"
            case .unregistered:
                let since = (device.invalidSince ?? device.disabledAt).map(TeamClock.stamp) ?? "a time not recorded"
                return "Not receiving: Apple says the app was removed from this device on \(since). "
                    + "Nothing is sent to it until Book Corners reports it again or you add it again."
            case .wrongEnvironment:
                return "Paused: Apple did not accept this token for \(environment) on \(when); it may belong to "
                    + "\(Self.environmentName(device.environment.other)). The next push tries that, and Book Corners’ next import brings it back."
            case .refused:
                return "Not receiving: Apple accepted this token for neither test nor live apps (last tried \(when)). "
                    + "Book Corners’ next import, or adding it again, brings it back."
            }
        }

        /// "live apps (production)", "test apps (sandbox)": Apple's environment as people know it.
        static func environmentName(_ environment: Device.Environment) -> String {
            environment == .production ? "live apps (production)" : "test apps (sandbox)"
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
