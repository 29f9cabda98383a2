import BookCornersAPI

/// Types whose optional fields the real backend writes as `null` rather than leaving out.
protocol NullableFields: Encodable {
    /// The JSON keys of the nullable fields that are `nil` in this value.
    var absentNullableKeys: [String] { get }
}

/// Encodes a generated model as the real backend does. The generated `encode(to:)` skips
/// `nil` optionals; this adds them back as explicit `null`s in the same JSON object.
struct Wire<Value: NullableFields>: Encodable {
    let value: Value

    func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
        var container = encoder.container(keyedBy: WireKey.self)
        for key in value.absentNullableKeys { try container.encodeNil(forKey: WireKey(stringValue: key)) }
    }
}

/// A list answer `{"items": [...], "pagination": {...}}` with wire-encoded items.
struct WireList<Item: NullableFields>: Encodable {
    let items: [Wire<Item>]
    let pagination: Pagination

    init(_ items: [Item], _ pagination: Pagination) {
        self.items = items.map { Wire(value: $0) }
        self.pagination = pagination
    }
}

struct WireKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func absent(_ pairs: [(String, Bool)]) -> [String] {
    pairs.compactMap { $0.1 ? $0.0 : nil }
}

extension ModerationLibrary: NullableFields {
    var absentNullableKeys: [String] {
        absent([("capacity", capacity == nil), ("is_indoor", isIndoor == nil), ("is_lit", isLit == nil), ("created_by", createdBy == nil)])
    }
}

extension PublicLibrary: NullableFields {
    var absentNullableKeys: [String] {
        absent([("capacity", capacity == nil), ("is_indoor", isIndoor == nil), ("is_lit", isLit == nil)])
    }
}

extension ModerationReport: NullableFields {
    var absentNullableKeys: [String] { absent([("created_by", createdBy == nil)]) }
}

extension ModerationPhoto: NullableFields {
    var absentNullableKeys: [String] { absent([("created_by", createdBy == nil)]) }
}
