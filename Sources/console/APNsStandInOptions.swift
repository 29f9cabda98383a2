import ArgumentParser
import Foundation
import Logging
import Sandbox

/// The sandbox's APNs stand-in: shared by `console sandbox` and `console demo`.
struct APNsStandInOptions: ParsableArguments {
    @Option(name: .long, help: "Port of the APNs stand-in (HTTP/2 over TLS, a certificate of its own). (env: SANDBOX_APNS_PORT, default: 8082)")
    var apnsPort: Int?

    @Option(
        name: .long,
        help:
            "Where the stand-in keeps its signing key, certificate (ca.pem) and the seeded users' device tokens. (env: SANDBOX_APNS_DIRECTORY, default: apns next to the sandbox database)"
    )
    var apnsDirectory: String?

    @Flag(name: .long, help: "Run no APNs stand-in. (env: SANDBOX_APNS=0)")
    var noApnsStandIn = false

    /// The stand-in with its files, or nil when turned off. `topic` is the bundle id it accepts.
    func standIn(sandboxDatabase: String, host: String, topic: String, logger: Logger) throws -> (standIn: APNsStandIn, files: APNsStandInFiles, port: Int)? {
        if noApnsStandIn || EnvironmentOption.string(nil, "SANDBOX_APNS", default: "1") == "0" { return nil }
        let port = try EnvironmentOption.integer(apnsPort, "SANDBOX_APNS_PORT", default: 8082)
        guard (1...65_535).contains(port) else { throw ValidationError("--apns-port (SANDBOX_APNS_PORT) must be 1 to 65535, got \(port).") }
        let directory =
            EnvironmentOption.optionalString(apnsDirectory, "SANDBOX_APNS_DIRECTORY")
            ?? URL(fileURLWithPath: sandboxDatabase).deletingLastPathComponent().appendingPathComponent("apns").path
        let files = try APNsStandInFiles.prepare(in: directory)
        let standIn = try APNsStandIn(
            configuration: APNsStandInConfiguration(
                host: host, port: port, certificatePath: files.certificatePath, providerPublicKeyPEM: files.key.publicKeyPEM,
                teamID: files.key.teamID, keyID: files.key.keyID, topic: topic),
            logger: logger)
        return (standIn, files, port)
    }
}
