import Foundation
import Hummingbird
import Logging
import ModerationStore

/// Builds the web console. Until the console pages land it answers a placeholder page
/// that names the backend it will talk to.
public func buildConsoleApplication(
    configuration: ConsoleConfiguration,
    logger: Logger = Logger(label: "console"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let directory = URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    _ = try ModerationStore(path: configuration.databasePath)
    let router = Router()
    let backend = configuration.backendURL.absoluteString
    router.get("/") { _, _ in
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: PlaceholderPage.html(backend: backend))))
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "BookCornersConsole"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The page `serve` shows before the console pages exist.
enum PlaceholderPage {
    static func html(backend: String) -> String {
        let escaped = backend.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Book Corners Moderation Console</title></head>
            <body><h1>Book Corners Moderation Console</h1>
            <p>The console is running and will talk to the backend at <code>\(escaped)</code>.</p></body></html>
            """
    }
}
