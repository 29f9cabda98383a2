import ArgumentParser
import Foundation

/// `--templates` and `--public`, shared by `serve` and `demo`. Without them the directories
/// are found wherever `console` runs from (see `ResourceLocator`).
struct ResourceOptions: ParsableArguments {
    @Option(name: .long, help: "Directory of the Mustache templates. (env: CONSOLE_TEMPLATES, default: Templates next to the console binary, else in the source checkout it was built from)")
    var templates: String?

    @Option(name: .customLong("public"), help: "Directory of the CSS, JS and icons. (env: CONSOLE_PUBLIC, default: Public next to the console binary, else in the source checkout it was built from)")
    var publicDirectory: String?

    func templatesDirectory(_ locator: ResourceLocator = ResourceLocator()) throws -> String {
        try locator.directory("Templates", override: EnvironmentOption.optionalString(templates, "CONSOLE_TEMPLATES"), option: "--templates", variable: "CONSOLE_TEMPLATES")
    }

    func publicFilesDirectory(_ locator: ResourceLocator = ResourceLocator()) throws -> String {
        try locator.directory("Public", override: EnvironmentOption.optionalString(publicDirectory, "CONSOLE_PUBLIC"), option: "--public", variable: "CONSOLE_PUBLIC")
    }
}

/// Finds a resource directory independent of the working directory: next to the executable
/// (a release build copied with its `Templates/` and `Public/`, the Docker image), then in the
/// source checkout the binary was built from (`swift run`, `.build/debug/console`).
struct ResourceLocator {
    /// Where the running binary really is, symlinks resolved (`/usr/local/bin/console` may point elsewhere).
    var executableDirectory: URL? = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
    /// The repository root this file was compiled in: Sources/console/ResourceOptions.swift, three levels down.
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
