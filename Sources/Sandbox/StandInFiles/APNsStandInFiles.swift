import Foundation

/// What the sandbox keeps for its APNs stand-in in one directory, so that a console started
/// apart (`console serve`) can be pointed at it, and a restart keeps the same key: the demo
/// signing key (`AuthKey.p8` and `key.json` with its ids), the stand-in's certificate
/// (`ca.pem`, rewritten at each start) and the seeded users' device tokens
/// (`device-tokens.json`, in Book Corners' own export format).
public struct APNsStandInFiles: Sendable {
    public let directory: String
    public let key: APNsDemoKey

    public var certificatePath: String { (directory as NSString).appendingPathComponent("ca.pem") }
    public var deviceTokensPath: String { (directory as NSString).appendingPathComponent("device-tokens.json") }

    private struct KeyIDs: Codable {
        let keyID: String
        let teamID: String
        let publicKeyPEM: String
    }

    /// Loads the key kept in `directory`, or makes one the first time.
    public static func prepare(in directory: String) throws -> APNsStandInFiles {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = (directory as NSString).appendingPathComponent("AuthKey.p8")
        let idsURL = URL(fileURLWithPath: (directory as NSString).appendingPathComponent("key.json"))
        if FileManager.default.fileExists(atPath: keyPath), let data = try? Data(contentsOf: idsURL),
            let ids = try? JSONDecoder().decode(KeyIDs.self, from: data)
        {
            return APNsStandInFiles(
                directory: directory, key: APNsDemoKey(keyPath: keyPath, keyID: ids.keyID, teamID: ids.teamID, publicKeyPEM: ids.publicKeyPEM))
        }
        let key = try APNsDemoKey.create(at: keyPath)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(KeyIDs(keyID: key.keyID, teamID: key.teamID, publicKeyPEM: key.publicKeyPEM)).write(to: idsURL, options: .atomic)
        return APNsStandInFiles(directory: directory, key: key)
    }

    /// Writes the device tokens of every user in the sandbox database at `databasePath`.
    public func writeDeviceTokens(sandboxDatabase databasePath: String) throws {
        try SandboxDeviceTokens.export(databasePath: databasePath).write(to: URL(fileURLWithPath: deviceTokensPath), options: .atomic)
    }
}
