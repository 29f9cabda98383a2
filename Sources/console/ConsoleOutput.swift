import Foundation

/// Writes straight to standard output: `print` is buffered when output is a pipe, and
/// people (and scripts) waiting for the demo's addresses should see them at once.
enum ConsoleOutput {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
