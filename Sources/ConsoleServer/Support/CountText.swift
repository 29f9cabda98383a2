/// A count with its noun in the right number: "1 decision", "3 decisions".
enum CountText {
    static func of(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }
}
