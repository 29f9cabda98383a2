import Foundation
import Hummingbird
import Logging
import ModerationVocabulary
import NIOCore

/// Decodes the console's forms (`application/x-www-form-urlencoded` bodies) into `Decodable`
/// types with Hummingbird's `URLEncodedFormDecoder`: the decoder `request.decode(as:context:)`
/// finds on `ConsoleRequestContext`. Whatever fails becomes a `FormError`.
public struct FormBodyDecoder: RequestDecoder {
    private static let mediaType = "application/x-www-form-urlencoded"

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard Self.isForm(request.headers[.contentType]) else { throw FormError.notAForm }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw ConsoleError.formTooLarge
        }
        return try decode(type, from: String(buffer: buffer), logger: context.logger)
    }

    /// Decodes one form body; `logger` hears why a garbled one could not be read.
    func decode<T: Decodable>(_ type: T.Type, from body: String, logger: Logger? = nil) throws(FormError) -> T {
        do {
            return try URLEncodedFormDecoder().decode(type, from: Self.repeatedNamesAsArrays(Self.escapingControlCharacters(body)))
        } catch {
            logger?.debug("form unreadable", metadata: ["form": "\(T.self)", "error": "\(error)"])
            throw .unreadable
        }
    }

    /// The body with every name and value that holds a control character (other than tab,
    /// LF and CR) re-encoded with it made visible (`ControlCharacters`): whatever a form
    /// carries into the database, the audit chain's hash included, is what SQLite stores
    /// (a NUL would cut the text there). Pairs without one are left byte for byte as sent.
    static func escapingControlCharacters(_ body: String) -> String {
        // Only an escape (`%00`…`%1F`, `%7F`, `%C2%80`…`%C2%9F`) or a raw control byte can
        // carry one; most bodies hold neither and are returned at once.
        guard body.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 < 0x20 || $0 == 0x7F }) else { return body }
        return body.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return escapedComponent(pair) }
            return escapedComponent(pair[..<equals]) + "=" + escapedComponent(pair[pair.index(after: equals)...])
        }.joined(separator: "&")
    }

    private static func escapedComponent(_ component: Substring) -> String {
        // Decoded by hand: Foundation's `removingPercentEncoding` drops a leading byte-order
        // mark, which would change the value. Bytes that are not UTF-8 become U+FFFD, as the
        // form decoder reads them; a broken escape is left as sent, for the decoder to refuse.
        guard let bytes = percentDecoded(component) else { return String(component) }
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard ControlCharacters.contains(in: decoded) else { return String(component) }
        let visible = ControlCharacters.escaped(decoded)
        return visible.addingPercentEncoding(withAllowedCharacters: formValueCharacters) ?? String(component)
    }

    /// The bytes a form component stands for: `+` is a space, `%XX` a byte; nil when it holds a broken escape.
    private static func percentDecoded(_ component: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = Array(component.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2, iterator.prefix(2).allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }),
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else if byte == UInt8(ascii: "%") {
                return nil
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// What may stand unescaped in a form value: RFC 3986's unreserved characters.
    private static let formValueCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// Browsers send a plain name once per ticked checkbox (`item=a&item=b`), which
    /// `URLEncodedFormDecoder` refuses as a duplicate: it wants arrays spelled `item[]=`.
    /// Spells every repeated plain name so; a form type then reads it with `RepeatedField`,
    /// and a name it expects once fails to decode, as it should.
    static func repeatedNamesAsArrays(_ body: String) -> String {
        let pairs = body.split(separator: "&")
        let names = pairs.map { $0.prefix { $0 != "=" } }
        var counts: [Substring: Int] = [:]
        for name in names { counts[name, default: 0] += 1 }
        guard counts.values.contains(where: { $0 > 1 }) else { return body }
        return zip(pairs, names).map { pair, name in
            // An escaped or bracketed name is left as sent: if it repeats, decoding refuses it.
            guard counts[name, default: 0] > 1, !name.contains("["), !name.contains("%") else { return String(pair) }
            return name + "[]" + pair.dropFirst(name.count)
        }.joined(separator: "&")
    }

    /// Whether `contentType` names a form body (parameters such as `charset` allowed).
    static func isForm(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return media.lowercased() == mediaType
    }
}
