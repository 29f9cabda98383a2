import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// axe-core, the accessibility engine browsers' own audits build on, over every page at
/// laptop and phone size: no violation of WCAG 2.2 A and AA (colour contrast and 24-px targets included), nor
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
        #expect(visited.values.count == 2 * 30, "every stop at both sizes: \(visited.values)")
        let found = problems.values
        #expect(found.isEmpty, "\(found.count) violations:\n\(found.joined(separator: "\n"))")
    }

    @Test("in the evening light (a device set to dark) every page is dark and axe finds no violation, contrast included, at 1280×900 and at 390×844")
    func axeOnEveryPageInTheDark() async throws {
        // setup
        let axe = try AxeCore.source()
        let problems = Recorder<String>()
        let visited = Recorder<String>()

        // act
        try await PageTour.walk(sizes: PageTour.Size.allCases, colorScheme: "dark") { stop, size, browser in
            visited.record("\(stop) \(size.rawValue)")
            // The page itself is dark: its background's luminance, 0 black … 1 white.
            let paper =
                try await browser.execute(
                    """
                    var parts = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).map(Number);
                    var channel = function (c) { c = c / 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
                    return 0.2126 * channel(parts[0]) + 0.7152 * channel(parts[1]) + 0.0722 * channel(parts[2]);
                    """) as? Double ?? 1
            if paper > 0.05 { problems.record("\(stop) at \(size.rawValue): the page's background is light (luminance \(paper))") }
            for violation in try await AxeCore.violations(in: browser, source: axe) {
                problems.record("\(stop) at \(size.rawValue), dark: \(violation)")
            }
        }

        // check
        #expect(visited.values.count == 2 * 30, "every stop at both sizes: \(visited.values)")
        let found = problems.values
        #expect(found.isEmpty, "\(found.count) violations:\n\(found.joined(separator: "\n"))")
    }
}

extension AccessibilityBrowserTests {
    @Test("the axe run the page tour uses catches targets smaller than 24×24 px crowded together: target-size is on")
    func targetSizeIsChecked() async throws {
        let axe = try AxeCore.source()
        let browser = try WebDriver()
        do {
            try await browser.start()
            let crowded = """
                <!doctype html><html lang="en"><head><title>Crowded</title></head><body><main><h1>Crowded</h1>
                <button style="width:12px;height:12px;padding:0;margin:0">a</button><button style="width:12px;height:12px;padding:0;margin:0">b</button>
                </main></body></html>
                """
            try await browser.go("data:text/html;charset=utf-8," + (crowded.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            let found = try await AxeCore.violations(in: browser, source: axe)
            #expect(found.contains { $0.hasPrefix("target-size") }, "\(found)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}

/// Finds and runs axe-core.
enum AxeCore {
    /// `axe.min.js` of axe-core 4: from `AXE_CORE_JS`, else from the `axe-playwright-python`
    /// wheel that `scripts/test.sh` installs (it carries axe-core 4.12; npm is not reachable
    /// here). An axe-core older than 4 is refused: it has no `target-size` rule.
    static func source() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["AXE_CORE_JS"], !path.isEmpty { candidates.append(path) }
        for python in ["/usr/bin/env", "/usr/bin/python3"] {
            let arguments =
                (python == "/usr/bin/env" ? ["python3"] : []) + [
                    "-c", "import axe_playwright_python, os; print(os.path.join(os.path.dirname(axe_playwright_python.__file__), 'axe.min.js'))",
                ]
            if let path = try? run(python, arguments), !path.isEmpty { candidates.append(path) }
        }
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasPrefix("/*! axe v4.") { return text }
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
    /// Every rule runs, `target-size` (WCAG 2.2: 24×24 CSS px, off by default) included; a run
    /// in which it did not run is a violation of its own.
    static func violations(in browser: WebDriver, source: String) async throws -> [String] {
        if try await browser.execute("return typeof window.axe;") as? String != "object" {
            _ = try await browser.execute(source + "\nreturn true;")
        }
        let answer = try await browser.executeAsync(
            """
            var done = arguments[arguments.length - 1];
            axe.run(document, { resultTypes: ["violations"], rules: { "target-size": { enabled: true } } }, function (error, results) {
              if (error) { done(["axe failed: " + error]); return; }
              var ran = [results.passes, results.violations, results.incomplete, results.inapplicable].some(function (list) {
                return list.some(function (rule) { return rule.id === "target-size"; });
              });
              var found = ran ? [] : ["target-size did not run (axe " + axe.version + ")"];
              done(found.concat(results.violations.map(function (v) {
                return v.id + " (" + v.impact + "): " + v.help + " — " + v.nodes.slice(0, 4).map(function (n) {
                  return n.target.join(" ") + " [" + (n.failureSummary || "").replace(/\\s+/g, " ") + "]";
                }).join("; ");
              })));
            });
            """)
        return answer as? [String] ?? ["axe gave no answer: \(String(describing: answer))"]
    }
}

enum AxeCoreError: Error, CustomStringConvertible {
    case notFound(tried: [String])

    var description: String {
        "axe-core 4 was not found (tried \(tried)). Run the tests with scripts/test.sh, which installs the axe-playwright-python wheel that carries it, or set AXE_CORE_JS to an axe.min.js of axe-core 4."
    }

    private var tried: String {
        switch self {
        case .notFound(let paths): paths.isEmpty ? "nothing" : paths.joined(separator: ", ")
        }
    }
}
