import Foundation

/// JSON coding that matches the backend: snake_case keys come from the generated
/// `CodingKeys`; timestamps are ISO 8601 UTC with milliseconds, or without a fraction
/// when it is zero (the backend sends both).
public enum BackendJSON {
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = BackendTimestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Not an ISO 8601 timestamp: \(text)")
            }
            return date
        }
        return decoder
    }

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(BackendTimestamp.format(date))
        }
        return encoder
    }
}

/// Parses and formats the backend's timestamps.
public enum BackendTimestamp {
    /// Accepts `2026-06-15T14:30:00Z`, `…:00.1Z` up to any number of fraction digits, and offsets.
    public static func parse(_ text: String) -> Date? {
        var base = Substring(text)
        var fraction = 0.0
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
            base = text[..<dot] + text[digits.endIndex...]
        }
        guard let whole = try? Date.ISO8601FormatStyle().parse(String(base)) else { return nil }
        return whole.addingTimeInterval(fraction)
    }

    /// Formats as the backend does: milliseconds, dropped when zero.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let milliseconds = Int(((date.timeIntervalSince1970 - seconds) * 1000).rounded())
        let whole = Date(timeIntervalSince1970: seconds).formatted(.iso8601)
        guard milliseconds > 0, milliseconds < 1000 else { return whole }
        return whole.dropLast() + "." + String(format: "%03d", milliseconds) + "Z"
    }
}
