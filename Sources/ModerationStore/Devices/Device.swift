import Foundation
import GRDB

/// A device token a person's pushes go to: imported from Book Corners' own export, or added
/// by a staff member for themselves.
public struct Device: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Equatable, Identifiable {
    public static let databaseTableName = "device"

    public var id: Int64?
    /// The Book Corners user id.
    public var userId: Int
    /// 64 hexadecimal digits, lower case.
    public var token: String
    public var environment: Environment
    /// Whether pushes go to it: `state == .active`, kept beside the state for the list's index.
    public var active: Bool
    /// Where the token stands with APNs; every change is one of `State.allowedNext`.
    public var state: State
    /// When APNs says the token stopped being valid (the `timestamp` of its 410 answer): only a
    /// registration Book Corners saw after this brings an unregistered token back.
    public var invalidSince: Date?
    /// The latest time Book Corners' export showed the app registered with this token; an
    /// APNs 410 whose time is not later than it does not stop the token.
    public var registeredAt: Date?
    public var lastSuccessAt: Date?
    /// Why it was disabled (APNs' reason, or who removed it); empty while active.
    public var disabledReason: String
    public var disabledAt: Date?
    /// `import` (the backend's export) or `staff` (the My devices page).
    public var source: String
    public var createdAt: Date

    public init(userId: Int, token: String, environment: Environment, source: String, createdAt: Date) {
        self.userId = userId
        self.token = token
        self.environment = environment
        self.active = true
        self.state = .active
        self.disabledReason = ""
        self.source = source
        self.createdAt = createdAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Which APNs host serves the token: Xcode builds get sandbox tokens, App Store builds production ones.
    public enum Environment: String, Codable, Sendable, CaseIterable {
        case sandbox, production

        /// The environment a token refused by this one most likely belongs to.
        public var other: Environment { self == .sandbox ? .production : .sandbox }
    }

    /// Where a token stands with APNs, and the moves it may make (Apple's rules): the one place
    /// that says which transitions exist. Every store method that changes a device's state names
    /// the states it expects (`WHERE state IN (…)`) and checks the change count.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Pushes go to it.
        case active
        /// APNs answered 410 `Unregistered` (the app was removed, or its token changed) at
        /// `invalidSince`: nothing goes to it until Book Corners reports it registered after that.
        case unregistered
        /// APNs answered 400 `BadDeviceToken` in the device's environment: most often a token of
        /// the other one. The next push tries the other environment; an import brings it back too.
        case wrongEnvironment = "wrong-environment"
        /// `BadDeviceToken` in both environments: back only by an import or its owner adding it again.
        case refused

        /// The states a device in this state may move to. Its owner adding it again (My devices)
        /// makes any state active.
        public var allowedNext: Set<State> {
            switch self {
            case .active: [.unregistered, .wrongEnvironment]
            // A registration after APNs' time, reported by an import.
            case .unregistered: [.active]
            // An import, or a push delivered in the other environment; or APNs' word from there.
            case .wrongEnvironment: [.active, .unregistered, .refused]
            case .refused: [.active]
            }
        }

        /// Every state from which `target` may be reached.
        public static func sources(of target: State) -> [State] {
            allCases.filter { $0.allowedNext.contains(target) }
        }

        /// `'active', 'refused'`: the states a guarded UPDATE names.
        static func sql(_ states: [State]) -> String {
            states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        }
    }

    /// A device token as APNs accepts it: 64 hexadecimal digits. Answers it lower-cased, or nil.
    public static func normalizedToken(_ text: String) -> String? {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard token.utf8.count == 64, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return token
    }
}
