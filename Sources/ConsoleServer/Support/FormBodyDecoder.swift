import Foundation
import Hummingbird
import Logging
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
            return try URLEncodedFormDecoder().decode(type, from: Self.repeatedNamesAsArrays(body))
        } catch {
            logger?.debug("form unreadable", metadata: ["form": "\(T.self)", "error": "\(error)"])
            throw .unreadable
        }
    }

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
