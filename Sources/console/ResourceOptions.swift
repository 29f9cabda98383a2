import ArgumentParser
import Foundation

/// `--templates` and `--public`, shared by `serve` and `demo`. Without them the directories
/// are found wherever `console` runs from (see `ResourceLocator`).
struct ResourceOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Directory of the Mustache templates. (env: CONSOLE_TEMPLATES, default: Templates next to the console binary, else in the source checkout it was built from)"
    )
    var templates: String?

    @Option(
        name: .customLong("public"),
        help:
            "Directory of the CSS, JS and icons. (env: CONSOLE_PUBLIC, default: Public next to the console binary, else in the source checkout it was built from)"
    )
    var publicDirectory: String?

    func templatesDirectory(_ locator: ResourceLocator = ResourceLocator()) throws -> String {
        try locator.directory(
            "Templates", override: EnvironmentOption.optionalString(templates, "CONSOLE_TEMPLATES"), option: "--templates", variable: "CONSOLE_TEMPLATES")
    }

    func publicFilesDirectory(_ locator: ResourceLocator = ResourceLocator()) throws -> String {
        try locator.directory(
            "Public", override: EnvironmentOption.optionalString(publicDirectory, "CONSOLE_PUBLIC"), option: "--public", variable: "CONSOLE_PUBLIC")
    }
}
