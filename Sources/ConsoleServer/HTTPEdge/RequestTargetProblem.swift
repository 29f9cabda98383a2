import Foundation

/// What is wrong with a request's address, if anything.
enum RequestTargetProblem: Equatable {
    case controlCharacter
    case dotSegment

    init?(path: String, query: String) {
        if Self.hasControlCharacter(path) || Self.hasControlCharacter(query) {
            self = .controlCharacter
        } else if path.split(separator: "/").contains(where: { Self.isDotSegment($0) }) {
            self = .dotSegment
        } else {
            return nil
        }
    }

    var message: String {
        switch self {
        case .controlCharacter:
            "The address contains a control character (such as %00, a NUL byte), which no console page or search uses. Check the link, or retype the address or the search text."
        case .dotSegment:
            "The address contains a \".\" or \"..\" folder step, which no console page uses. Check the link, or go back to the dashboard."
        }
    }

    /// Looks at bytes, raw or %-escaped, so it needs no decoding that could fail: UTF-8 never
    /// uses a byte below 0x80 inside a multi-byte character, so each escape can be judged alone.
    private static func hasControlCharacter(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            var byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                byte = high << 4 | low
                index += 3
            } else {
                index += 1
            }
            // C0 controls and DEL; tab is allowed (search text pasted from a spreadsheet).
            if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F { return true }
        }
        return false
    }

    private static func isDotSegment(_ segment: Substring) -> Bool {
        let decoded = String(segment).removingPercentEncoding ?? String(segment)
        return decoded == "." || decoded == ".."
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
