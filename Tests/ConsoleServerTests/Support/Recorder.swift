import Foundation

/// Thread-safe record of the values a closure was called with.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []
    var values: [Value] { lock.withLock { recorded } }
    func record(_ value: Value) { lock.withLock { recorded.append(value) } }
}
