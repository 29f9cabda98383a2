import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// Spends a kept form once the decision POST that carries its key (`unsent`, from the Send
/// form of `/unsent/<key>`) has been accepted: the form then cannot be sent a second time from
/// its page. A refused POST (a problem shown on the form) leaves it to send again.
struct KeptFormSpending: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    static let fieldName = "unsent"
    let store: ModerationStore

    private struct Reference: Decodable {
        let unsent: String?
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, UnsentWork.isDecisionPath(request.uri.path), let staffId = context.session?.staffId else {
            return try await next(request, context)
        }
        var request = request
        let key = try await request.decodeForm(as: Reference.self, context: context).unsent
        let response = try await next(request, context)
        if let key, !key.isEmpty, key.count <= 100, response.status.code < 400 {
            try await store.spendKeptForm(id: RandomToken.digest(key), ownerStaffId: staffId)
        }
        return response
    }
}
