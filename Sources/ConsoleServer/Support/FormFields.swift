import Foundation
import Hummingbird

/// The fields of an `application/x-www-form-urlencoded` body, read once and kept on the
/// request so that middleware and controllers can both look.
struct FormFields: Sendable {
    private let values: [String: [String]]

    init(request: inout Request, context: ConsoleRequestContext) async throws {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch {
            throw ConsoleError.formTooLarge
        }
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        var values: [String: [String]] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            values[name, default: []].append(parts.count > 1 ? Self.decode(parts[1]) ?? "" : "")
        }
        self.values = values
    }

    subscript(name: String) -> String? { values[name]?.last }

    func all(_ name: String) -> [String] { values[name] ?? [] }

    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
