import Foundation

/// A fresh directory under the system's temporary folder, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bookcorners-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
