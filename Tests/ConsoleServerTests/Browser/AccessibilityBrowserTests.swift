import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// axe-core, the accessibility engine browsers' own audits build on, over every page at
/// laptop and phone size: no violation of WCAG 2.1 A and AA (colour contrast included), nor
/// of axe's best practices.
@Suite("Accessibility in a real browser", .serialized, .timeLimit(.minutes(8)))
struct AccessibilityBrowserTests {
    @Test(
        "axe finds no violation on any page, at 1280×900 and at 390×844; sign-in puts the cursor in the password after a wrong one, and says when someone signed out"
    )
    func axeOnEveryPage() async throws {
        // setup: axe-core's script (the test command installs it; its absence is a failure, not a skip)
        let axe = try AxeCore.source()
        let problems = Recorder<String>()
        let visited = Recorder<String>()

        // act
        try await PageTour.walk(sizes: PageTour.Size.allCases) { stop, size, browser in
            visited.record("\(stop) \(size.rawValue)")
            if stop == "sign-in after a wrong password" {
                let focused = try await browser.execute("return document.activeElement ? document.activeElement.id : '';") as? String
                if focused != "password" { problems.record("after a wrong password at \(size.rawValue) the focus is on “\(focused ?? "")”, not the password") }
            }
            if stop == "signed out", try await browser.source().contains("You have signed out.") == false {
                problems.record("the sign-in page after signing out does not say so")
            }
            for violation in try await AxeCore.violations(in: browser, source: axe) {
                problems.record("\(stop) at \(size.rawValue): \(violation)")
            }
        }

        // check
        #expect(visited.values.count == 2 * 29, "every stop at both sizes: \(visited.values)")
        let found = problems.values
        #expect(found.isEmpty, "\(found.count) violations:\n\(found.joined(separator: "\n"))")
    }
}

/// Finds and runs axe-core.
enum AxeCore {
    /// `axe.min.js`: from `AXE_CORE_JS`, else from the `axe-selenium-python` wheel that
    /// `scripts/test.sh` installs (it carries axe-core; npm is not reachable here).
    static func source() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["AXE_CORE_JS"], !path.isEmpty { candidates.append(path) }
        for python in ["/usr/bin/env", "/usr/bin/python3"] {
            let arguments =
                (python == "/usr/bin/env" ? ["python3"] : []) + [
                    "-c",
                    "import axe_selenium_python, os; print(os.path.join(os.path.dirname(axe_selenium_python.__file__), 'node_modules', 'axe-core', 'axe.min.js'))",
                ]
            if let path = try? run(python, arguments), !path.isEmpty { candidates.append(path) }
        }
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains("axe") { return text }
        }
        throw AxeCoreError.notFound(tried: candidates)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return "" }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Each violation on the page the browser shows: rule, impact, and the elements with why.
    /// Every rule runs but `checkboxgroup`, which axe-core 4 removed: it asked for a fieldset
    /// around a list's row checkboxes, each of which has its own label ("Select …").
    static func violations(in browser: WebDriver, source: String) async throws -> [String] {
        if try await browser.execute("return typeof window.axe;") as? String != "object" {
            _ = try await browser.execute(source + "\nreturn true;")
        }
        let answer = try await browser.executeAsync(
            """
            var done = arguments[arguments.length - 1];
            axe.run(document, { resultTypes: ["violations"], rules: { checkboxgroup: { enabled: false } } }, function (error, results) {
              if (error) { done(["axe failed: " + error]); return; }
              done(results.violations.map(function (v) {
                return v.id + " (" + v.impact + "): " + v.help + " — " + v.nodes.slice(0, 4).map(function (n) {
                  return n.target.join(" ") + " [" + (n.failureSummary || "").replace(/\\s+/g, " ") + "]";
                }).join("; ");
              }));
            });
            """)
        return answer as? [String] ?? ["axe gave no answer: \(String(describing: answer))"]
    }
}

enum AxeCoreError: Error, CustomStringConvertible {
    case notFound(tried: [String])

    var description: String {
        "axe-core was not found (tried \(tried)). Run the tests with scripts/test.sh, which installs the axe-selenium-python wheel that carries it, or set AXE_CORE_JS to an axe.min.js."
    }

    private var tried: String {
        switch self {
        case .notFound(let paths): paths.isEmpty ? "nothing" : paths.joined(separator: ", ")
        }
    }
}
