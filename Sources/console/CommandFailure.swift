import ArgumentParser
import Foundation

/// A command that could not do what was asked: ArgumentParser prints it on standard error
/// as `Error: <message>` and exits with status 1 (a ValidationError would exit 64 with usage).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
