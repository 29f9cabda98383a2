import ArgumentParser
import Foundation
import Logging

/// Flag, then environment variable, then default: the order every option resolves in.
enum EnvironmentOption {
    static func string(_ flag: String?, _ variable: String, default fallback: String) -> String {
        optionalString(flag, variable) ?? fallback
    }

    /// Flag, then variable, or nil when neither is set (the caller knows a better default).
    static func optionalString(_ flag: String?, _ variable: String) -> String? {
        flag ?? ProcessInfo.processInfo.environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func integer(_ flag: Int?, _ variable: String, default fallback: Int) throws -> Int {
        try optionalInteger(flag, variable) ?? fallback
    }

    /// Flag, then variable, or nil when neither is set (the caller knows a better default).
    static func optionalInteger(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw ValidationError("\(variable) must be a whole number, got '\(text)'.") }
        return value
    }

    static func logLevel(_ flag: String?, _ variable: String) throws -> Logger.Level {
        let text = string(flag, variable, default: "info")
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError("Unknown log level '\(text)'; use trace, debug, info, notice, warning, error or critical.")
        }
        return level
    }

    static func logger(label: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}
