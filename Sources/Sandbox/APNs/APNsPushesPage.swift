import Foundation

/// The demo's window on the stand-in: the pushes it received, newest first, refreshed every
/// two seconds so a person can watch a decision become a notification.
struct APNsPushesPage {
    static let title = "Pushes received by the APNs stand-in"

    let pushes: [APNsReceivedPush]
    let total: Int

    func html() -> String {
        let rows = pushes.map(Self.row).joined(separator: "\n")
        let empty = pushes.isEmpty ? "<p>No pushes yet: make a decision in the console.</p>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta http-equiv="refresh" content="2">
              <title>\(Self.title)</title>
              <style>
                body { font-family: system-ui, sans-serif; margin: 2rem; }
                table { border-collapse: collapse; width: 100%; }
                th, td { border-bottom: 1px solid #ddd; padding: .4rem; text-align: left; vertical-align: top; }
                pre { margin: 0; white-space: pre-wrap; word-break: break-all; }
                .refused { color: #a40000; }
              </style>
            </head>
            <body>
            <h1>\(Self.title)</h1>
            <p>\(total) received in all; the newest \(pushes.count) shown, newest first.</p>
            \(empty)
            <table>
            <thead><tr><th>Received</th><th>Device</th><th>Answer</th><th>Headers</th><th>Payload</th></tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table>
            </body>
            </html>
            """
    }

    private static func row(_ push: APNsReceivedPush) -> String {
        let answer = push.status == 200 ? "200" : "\(push.status) \(escape(push.reason))"
        let headers = push.headers.sorted { $0.key < $1.key }.map { "\(escape($0.key)): \(escape($0.value))" }.joined(separator: "\n")
        return """
            <tr class="\(push.status == 200 ? "delivered" : "refused")">
            <td>\(escape(push.receivedAt.formatted(.iso8601)))</td>
            <td><code>\(escape(push.deviceToken))</code></td>
            <td>\(answer) <small>(\(escape(push.httpVersion)))</small></td>
            <td><pre>\(headers)</pre></td>
            <td><pre>\(escape(prettyPrinted(push.payload)))</pre></td>
            </tr>
            """
    }

    /// The payload indented for reading, or as it came when it is not JSON.
    private static func prettyPrinted(_ payload: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return payload }
        return String(decoding: data, as: UTF8.self)
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
