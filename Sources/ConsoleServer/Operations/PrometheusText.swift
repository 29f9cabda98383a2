/// Writes families in Prometheus' text format (0.0.4) for the values read at scrape time:
/// counts from the database and the backend budgets, which no swift-metrics handle holds.
struct PrometheusText {
    enum Kind: String { case counter, gauge }

    private(set) var text = ""

    /// One family: its HELP and TYPE lines, then one line per sample.
    mutating func family(_ name: String, _ kind: Kind, help: String, samples: [(labels: [(String, String)], value: Double)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            let labels = sample.labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",")
            text += name + (labels.isEmpty ? "" : "{\(labels)}") + " " + Self.number(sample.value) + "\n"
        }
    }

    mutating func family(_ name: String, _ kind: Kind, help: String, value: Double) {
        family(name, kind, help: help, samples: [([], value)])
    }

    private static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
