import Crypto
import Foundation
import GRDB
import ModerationVocabulary

/// One line of the audit log: who decided what, when, from where, and what came of it.
/// Entries form a hash chain: each hash covers the entry's canonical encoding and the
/// previous entry's hash, so any edit, deletion or reordering breaks the chain.
public struct AuditEntry: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
    public static let databaseTableName = "auditEntry"
    /// The previous hash of the first entry.
    public static let genesisHash = String(repeating: "0", count: 64)

    public var id: Int64?
    public var recordedAt: Date
    public var actorId: Int?
    public var actorUsername: String
    /// `library.approve`, `report.resolve`, `session.signIn`, …
    public var action: String
    public var targetKind: String
    public var targetId: String
    public var targetSlug: String
    public var targetName: String
    public var statusBefore: String
    public var statusAfter: String
    public var reason: String
    public var outcome: AuditOutcome
    /// Why it came out so ("wrong credentials", "expired"); empty when the outcome says it all.
    public var outcomeDetail: String
    /// The outcome column of an entry written before outcomes were a closed set, when it held
    /// the outcome and its explanation in one text: the hash covers that text.
    public private(set) var legacyOutcomeText: String?
    public var backendStatus: Int?
    public var requestId: String
    public var clientAddress: String
    public var userAgent: String
    public var itemCreatedAt: Date?
    public var actionId: Int64?
    public var previousHash: String
    public var hash: String
    /// Whether `hash` is an HMAC-SHA256 under the audit key rather than a plain SHA-256.
    /// Once an `audit.keyed` entry switched the chain, every later entry is keyed.
    public internal(set) var keyed: Bool

    public init(
        recordedAt: Date, actorId: Int?, actorUsername: String, action: String, targetKind: String, targetId: String,
        targetSlug: String, targetName: String, statusBefore: String, statusAfter: String, reason: String, outcome: AuditOutcome,
        outcomeDetail: String = "", backendStatus: Int?, requestId: String, clientAddress: String, userAgent: String, itemCreatedAt: Date?, actionId: Int64?
    ) {
        self.recordedAt = recordedAt
        self.actorId = actorId
        self.actorUsername = actorUsername
        self.action = action
        self.targetKind = targetKind
        self.targetId = targetId
        self.targetSlug = targetSlug
        self.targetName = targetName
        self.statusBefore = statusBefore
        self.statusAfter = statusAfter
        self.reason = reason
        self.outcome = outcome
        self.outcomeDetail = outcomeDetail
        self.legacyOutcomeText = nil
        self.backendStatus = backendStatus
        self.requestId = requestId
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.itemCreatedAt = itemCreatedAt
        self.actionId = actionId
        self.previousHash = ""
        self.hash = ""
        self.keyed = false
    }

    /// Every text field with its control characters made visible (`ControlCharacters`):
    /// done before the entry is hashed, so the hash covers exactly what SQLite stores.
    mutating func escapeControlCharacters() {
        for field in [
            \Self.actorUsername, \.action, \.targetKind, \.targetId, \.targetSlug, \.targetName, \.statusBefore,
            \.statusAfter, \.reason, \.outcomeDetail, \.requestId, \.clientAddress, \.userAgent,
        ] as [WritableKeyPath<Self, String>] {
            self[keyPath: field] = ControlCharacters.escaped(self[keyPath: field])
        }
    }

    /// The columns in a fixed order, so rows are read by position (exports read millions).
    public static var databaseSelection: [any SQLSelectable] {
        [
            Column("id"), Column("recordedAt"), Column("actorId"), Column("actorUsername"), Column("action"), Column("targetKind"),
            Column("targetId"), Column("targetSlug"), Column("targetName"), Column("statusBefore"), Column("statusAfter"),
            Column("reason"), Column("outcome"), Column("backendStatus"), Column("requestId"), Column("clientAddress"),
            Column("userAgent"), Column("itemCreatedAt"), Column("actionId"), Column("previousHash"), Column("hash"),
            Column("outcomeDetail"), Column("keyed"),
        ]
    }

    public init(row: Row) throws {
        id = row[0]
        recordedAt = row[1]
        actorId = row[2]
        actorUsername = row[3]
        action = row[4]
        targetKind = row[5]
        targetId = row[6]
        targetSlug = row[7]
        targetName = row[8]
        statusBefore = row[9]
        statusAfter = row[10]
        reason = row[11]
        (outcome, outcomeDetail, legacyOutcomeText) = AuditOutcome.decode(stored: row[12], detail: row[21], action: row[4])
        backendStatus = row[13]
        requestId = row[14]
        clientAddress = row[15]
        userAgent = row[16]
        itemCreatedAt = row[17]
        actionId = row[18]
        previousHash = row[19]
        hash = row[20]
        keyed = row[22]
    }

    /// Written by hand rather than through `Codable`: appends are the log's hot path, and
    /// times are stored in GRDB's own format ("yyyy-MM-dd HH:mm:ss.SSS", UTC) without a
    /// `DateFormatter`.
    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["recordedAt"] = StoredTime.string(recordedAt)
        container["actorId"] = actorId
        container["actorUsername"] = actorUsername
        container["action"] = action
        container["targetKind"] = targetKind
        container["targetId"] = targetId
        container["targetSlug"] = targetSlug
        container["targetName"] = targetName
        container["statusBefore"] = statusBefore
        container["statusAfter"] = statusAfter
        container["reason"] = reason
        container["outcome"] = legacyOutcomeText ?? outcome.rawValue
        container["outcomeDetail"] = outcomeDetail
        container["backendStatus"] = backendStatus
        container["requestId"] = requestId
        container["clientAddress"] = clientAddress
        container["userAgent"] = userAgent
        container["itemCreatedAt"] = itemCreatedAt.map(StoredTime.string)
        container["actionId"] = actionId
        container["previousHash"] = previousHash
        container["hash"] = hash
        container["keyed"] = keyed
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The fields the hash covers, in a fixed order, as JSON: every field but `hash`.
    /// Times are whole milliseconds since 1970, so the encoding survives a round trip.
    public func canonicalEncoding() -> Data {
        func millis(_ date: Date?) -> String { date.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "null" }
        func text(_ value: String) -> String { CanonicalJSON.string(value) }
        var fields: [String] = [
            "\"id\":\(id.map(String.init) ?? "null")", "\"recordedAt\":\(millis(recordedAt))",
            "\"actorId\":\(actorId.map(String.init) ?? "null")", "\"actorUsername\":\(text(actorUsername))",
            "\"action\":\(text(action))", "\"targetKind\":\(text(targetKind))", "\"targetId\":\(text(targetId))",
            "\"targetSlug\":\(text(targetSlug))", "\"targetName\":\(text(targetName))",
            "\"statusBefore\":\(text(statusBefore))", "\"statusAfter\":\(text(statusAfter))", "\"reason\":\(text(reason))",
            "\"outcome\":\(text(legacyOutcomeText ?? outcome.rawValue))", "\"backendStatus\":\(backendStatus.map(String.init) ?? "null")",
            "\"requestId\":\(text(requestId))", "\"clientAddress\":\(text(clientAddress))", "\"userAgent\":\(text(userAgent))",
            "\"itemCreatedAt\":\(millis(itemCreatedAt))", "\"actionId\":\(actionId.map(String.init) ?? "null")",
            "\"previousHash\":\(text(previousHash))",
        ]
        // An explanation is hashed only where there is one, right after the outcome, so
        // entries from before it had its own field hash exactly as they did.
        if legacyOutcomeText == nil, !outcomeDetail.isEmpty {
            fields.insert("\"outcomeDetail\":\(text(outcomeDetail))", at: 13)
        }
        return Data(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    /// SHA-256 (hex) of the canonical encoding.
    public func computedHash() -> String {
        Self.hex(SHA256.hash(data: canonicalEncoding()))
    }

    /// The hash this entry should carry: the HMAC-SHA256 under `key` when it is keyed,
    /// else the plain SHA-256; `nil` when it is keyed and there is no key to check it with.
    public func computedHash(key: AuditKey?) -> String? {
        guard keyed else { return computedHash() }
        return key?.mac(canonicalEncoding())
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The action of the entry `console audit prune` writes before it removes anything.
    /// Such a checkpoint keeps the last removed entry's id in `targetId` and its hash in
    /// `targetSlug`, so the first remaining entry still has something to chain to.
    public static let pruneCheckpointAction = "audit.prune"
    /// The action of the entry that switches the chain to keyed hashes: it is the first
    /// keyed entry, and every entry after it must be keyed too.
    public static let keyedAction = "audit.keyed"
    /// The action of the entry `console audit reanchor` writes: it names an entry whose contents
    /// no longer match its hash (`targetId`) and the hash it carries (`targetSlug`), and the
    /// chain verifies past that entry from then on. History is not rewritten, only annotated.
    public static let reanchorAction = "audit.reanchor"
    /// The action recorded when someone exports the log.
    public static let exportAction = "audit.export"
    /// The action of every sign-in attempt, and the outcome of one that let a staff member in.
    /// Failed and refused attempts record whatever login was typed, so only this outcome
    /// names a staff member.
    public static let signInAction = "session.signIn"
    /// The action of a session the console ended by itself (expired, refused, …).
    public static let sessionEndAction = "session.end"

    /// Whether this entry records a decision on a library, report or photo.
    public var isDecision: Bool { ModerationAction.TargetKind(rawValue: targetKind) != nil }

    /// The outcome in words, with its explanation: "failed (wrong credentials)".
    public var outcomeText: String {
        outcomeDetail.isEmpty ? outcome.rawValue : "\(outcome.rawValue) (\(outcomeDetail))"
    }

    /// Restores an entry read back from an export: the outcome as the file stored it.
    mutating func restoreOutcome(stored: String, detail: String) {
        (outcome, outcomeDetail, legacyOutcomeText) = AuditOutcome.decode(stored: stored, detail: detail, action: action)
    }

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let actionId = Column(CodingKeys.actionId)
    }
}

/// What walking the chain found.
/// Why `reanchorAudit` refused.
public enum AuditReanchorError: Error, Equatable, Sendable {
    /// The chain verifies: there is nothing to acknowledge.
    case chainIntact
    /// The chain first breaks at another entry: acknowledge breaks in order, the first first.
    case notFirstBreak(firstBreak: Int64)
    /// The break is not an entry whose contents alone changed (an entry was removed, moved or
    /// added, or the key is wrong): a re-anchor must not paper over that.
    case notContentDamage
    case database(String)
}

public enum AuditChainVerdict: Equatable, Sendable {
    case intact(entries: Int, head: String)
    case broken(entryID: Int64, reason: String)

    /// How the reason of a break starts when an entry's contents alone do not match its hash.
    public static let contentMismatchPrefix = "its contents do not match"
}
