import Foundation
import TestSupport

extension WebDriver {
    /// What the page last said to screen readers after a shortcut (its polite live region), once it has had time to say it.
    func spokenText() async throws -> String {
        try await Task.sleep(for: .milliseconds(200))
        return try await execute("return document.getElementById('keyboard-live').textContent;") as? String ?? ""
    }

    /// Whether `script` returns true within `seconds`, asked every 100 ms: for what the page does by itself
    /// (an answer sent in place, a live update), which a loaded machine may take seconds to show.
    func waitUntil(_ script: String, seconds: Int = 15) async throws -> Bool {
        for _ in 0..<(seconds * 10) {
            if try await execute(script) as? Bool == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
