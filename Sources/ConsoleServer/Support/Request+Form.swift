import Hummingbird

extension Request {
    /// Decodes the form this request carries. The body is read once, within the console's size
    /// limit, and kept on the request, so the CSRF check and the controller can both decode it.
    mutating func decodeForm<Form: Decodable>(as type: Form.Type, context: ConsoleRequestContext) async throws -> Form {
        do {
            _ = try await collectBody(upTo: context.maxUploadSize)
        } catch {
            throw ConsoleError.formTooLarge
        }
        return try await decode(as: type, context: context)
    }
}
