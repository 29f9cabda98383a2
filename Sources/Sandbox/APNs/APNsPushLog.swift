import Foundation

/// The pushes the stand-in received, newest first, the oldest dropped beyond a cap.
public actor APNsPushLog {
    private let capacity: Int
    private var kept: [APNsReceivedPush] = []
    /// Every push ever received, kept or not.
    public private(set) var total = 0
    private var connections: Set<ObjectIdentifier> = []
    /// How many TCP connections pushes came on (APNs wants many pushes over few connections).
    public var connectionCount: Int { connections.count }

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func append(_ push: APNsReceivedPush, connection: ObjectIdentifier) {
        total += 1
        connections.insert(connection)
        kept.insert(push, at: 0)
        if kept.count > capacity { kept.removeLast(kept.count - capacity) }
    }

    /// The kept pushes, newest first.
    public func pushes() -> [APNsReceivedPush] { kept }

    public func removeAll() {
        kept = []
        total = 0
        connections = []
    }
}
