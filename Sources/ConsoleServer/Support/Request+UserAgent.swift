import Hummingbird
import ModerationVocabulary

extension Request {
    /// The browser's User-Agent as the console stores it: "" when absent, its control
    /// characters made visible (`ControlCharacters`), since it reaches sessions and the audit log.
    var userAgent: String {
        ControlCharacters.escaped(headers[.userAgent] ?? "")
    }
}
