import Foundation

/// Writes straight to standard output: `print` is buffered when output is a pipe, and
/// people (and scripts) waiting for the demo's addresses should see them at once. Text that
/// cannot be written (nobody reads the pipe any more) is dropped: `FileHandle.write(_:)` would
/// end the process on EPIPE.
enum ConsoleOutput {
    static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }
}
