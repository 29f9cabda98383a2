import ArgumentParser
import Foundation

/// Finds a resource directory independent of the working directory: next to the executable
/// (a release build copied with its `Templates/` and `Public/`, the Docker image), then in the
/// source checkout the binary was built from (`swift run`, `.build/debug/console`).
struct ResourceLocator {
    /// Where the running binary really is, symlinks resolved (`/usr/local/bin/console` may point elsewhere).
    var executableDirectory: URL? = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
    /// The repository root this file was compiled in: Sources/console/ResourceLocator.swift, three levels down.
    var checkoutDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func directory(_ name: String, override: String?, option: String, variable: String) throws -> String {
        if let override { return override }
        let candidates = [executableDirectory, checkoutDirectory].compactMap { $0?.appendingPathComponent(name).path }
        if let found = candidates.first(where: isDirectory) { return found }
        throw ValidationError(
            "Cannot find the \(name) directory; looked in \(candidates.joined(separator: " and ")). Pass \(option) DIR or set \(variable).")
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
