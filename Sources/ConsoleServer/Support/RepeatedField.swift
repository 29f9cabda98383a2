/// A form field a browser sends once per chosen value, any number of times (a checkbox list):
/// `FormBodyDecoder` spells a repeated name as an array, a name sent once stays a single value.
struct RepeatedField: Decodable, Sendable, Equatable {
    let values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let many = try? container.decode([String].self) {
            values = many
        } else {
            values = [try container.decode(String.self)]
        }
    }
}
