import Foundation

/// The head of the chain written down somewhere else (a ticket, a notebook, another
/// machine): later, `console audit verify --anchor` checks that this entry is still in the
/// log with this hash. Whoever rewrites the log would have to change the anchored entry or
/// the ones before it, and with a keyed chain cannot give the rewrite that same hash.
public struct AuditAnchor: Equatable, Sendable {
    public let id: Int64
    public let hash: String
    public let recordedAt: Date
    public let keyed: Bool

    public init(id: Int64, hash: String, recordedAt: Date, keyed: Bool) {
        self.id = id
        self.hash = hash
        self.recordedAt = recordedAt
        self.keyed = keyed
    }

    public init(head entry: AuditEntry) {
        self.init(id: entry.id ?? 0, hash: entry.hash, recordedAt: entry.recordedAt, keyed: entry.keyed)
    }

    /// One line, words separated by spaces, easy to copy whole:
    /// `audit-anchor id=42 hash=<64 hex> recorded=2026-11-25T07:00:00.123Z keyed=yes`.
    public var line: String {
        "audit-anchor id=\(id) hash=\(hash) recorded=\(ISOTime.string(recordedAt)) keyed=\(keyed ? "yes" : "no")"
    }

    /// Reads a line `line` wrote (surrounding spaces and quotes forgiven); nil if it is not one.
    public init?(line: String) {
        let words = line.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n\"'")).split(separator: " ")
        guard words.first == "audit-anchor" else { return nil }
        var fields: [Substring: Substring] = [:]
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "=") else { return nil }
            fields[word[..<equals]] = word[word.index(after: equals)...]
        }
        guard let id = fields["id"].flatMap({ Int64($0) }), id > 0,
            let hash = fields["hash"].map(String.init), hash.count == 64, hash.allSatisfy(\.isHexDigit),
            let recorded = fields["recorded"].flatMap({ ISOTime.parse(String($0)) }),
            let keyed = fields["keyed"], keyed == "yes" || keyed == "no"
        else { return nil }
        self.init(id: id, hash: hash.lowercased(), recordedAt: recorded, keyed: keyed == "yes")
    }
}

/// What the log holds where an anchor points.
public enum AuditAnchorCheck: Equatable, Sendable {
    /// The anchored entry is there with the anchored hash.
    case matches
    /// A prune removed it, and its checkpoint entry (this id) kept the anchored hash.
    case prunedBehind(checkpoint: Int64)
    /// The entry is there with another hash: the log was rewritten.
    case differs(found: String)
    /// The entry is gone and no checkpoint accounts for it.
    case missing
}

extension AuditEntry {
    /// The entry that switches the chain to keyed hashes, with `entry`'s actor and origin.
    static func keyedSwitch(by entry: AuditEntry) -> AuditEntry {
        AuditEntry(
            recordedAt: entry.recordedAt, actorId: entry.actorId, actorUsername: entry.actorUsername, action: keyedAction,
            targetKind: "auditLog", targetId: "", targetSlug: "", targetName: "entries from here on are keyed (HMAC-SHA256)",
            statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: entry.requestId,
            clientAddress: entry.clientAddress, userAgent: entry.userAgent, itemCreatedAt: nil, actionId: nil)
    }
}
