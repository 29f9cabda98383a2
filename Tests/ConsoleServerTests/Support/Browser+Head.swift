import HTTPTypes
import HummingbirdTesting

extension Browser {
    /// A HEAD request with the browser's cookies; answers status, headers and the (expected empty) body.
    func head(_ path: String) async throws -> Page {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let response = try await client.execute(uri: path, method: .head, headers: headers, body: nil)
        return Page(status: response.status, headers: response.headers, html: String(buffer: response.body))
    }

    /// A GET with extra request headers (validators), cookies included.
    func get(_ path: String, headers extra: HTTPFields) async throws -> Page {
        var headers = extra
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let response = try await client.execute(uri: path, method: .get, headers: headers, body: nil)
        return Page(status: response.status, headers: response.headers, html: String(buffer: response.body))
    }

    /// A request with any method and no body, cookies included: for methods no page sends.
    func request(_ path: String, method: HTTPRequest.Method) async throws -> Page {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: nil)
        return Page(status: response.status, headers: response.headers, html: String(buffer: response.body))
    }
}
