import ArgumentParser
import ConsoleServer
import Foundation

/// How the outbox delivers: shared by `console serve` and `console demo`.
struct OutboxOptions: ParsableArguments {
    @Option(name: .long, help: "spool, webhook, apns or off. (env: CONSOLE_OUTBOX_TRANSPORT, default: spool; demo: apns, to the sandbox's APNs stand-in)")
    var outboxTransport: String?

    @Option(
        name: .long,
        help:
            "Per event type, deliver or recorded-only, e.g. library.approved=deliver (with --book-corners-pushes-off only: Book Corners pushes that news itself). (env: CONSOLE_OUTBOX_POLICY, default: library.approved and library.rejected recorded only when Book Corners sends them itself)"
    )
    var outboxPolicy: String?

    @Flag(
        name: .long,
        help:
            "Book Corners' own pushes to submitters are turned off, so the console may deliver library.approved and library.rejected itself (--outbox-policy refuses that otherwise). (env: CONSOLE_BOOK_CORNERS_PUSHES_OFF=1)"
    )
    var bookCornersPushesOff = false

    @Option(name: .long, help: "Attempts after which a message that keeps failing is given up (failed). (env: CONSOLE_OUTBOX_MAX_ATTEMPTS, default: 10)")
    var outboxMaxAttempts: Int?

    @Option(name: .long, help: "spool: the directory messages are written to. (env: CONSOLE_OUTBOX_SPOOL, default: outbox-spool next to the database)")
    var outboxSpool: String?

    @Option(name: .long, help: "webhook: the URL messages are POSTed to. (env: CONSOLE_OUTBOX_WEBHOOK_URL)")
    var outboxWebhookURL: String?

    @Option(
        name: .long,
        help:
            "webhook: a file (mode 0600) holding the signing secret, at least 32 bytes. (env: CONSOLE_OUTBOX_WEBHOOK_SECRET_FILE; or the secret itself in CONSOLE_OUTBOX_WEBHOOK_SECRET)"
    )
    var outboxWebhookSecretFile: String?

    @Option(name: .long, help: "apns: the team's .p8 signing key. (env: CONSOLE_APNS_KEY_FILE)")
    var apnsKeyFile: String?

    @Option(name: .long, help: "apns: the key's id, 10 characters. (env: CONSOLE_APNS_KEY_ID)")
    var apnsKeyID: String?

    @Option(name: .long, help: "apns: the Apple Developer team id. (env: CONSOLE_APNS_TEAM_ID)")
    var apnsTeamID: String?

    @Option(name: .long, help: "The iOS app's bundle id, every push's apns-topic. (env: CONSOLE_APNS_TOPIC, default: org.bookcorners.app)")
    var apnsTopic: String?

    @Option(name: .long, help: "apns: production host. (env: CONSOLE_APNS_PRODUCTION_URL, default: https://api.push.apple.com)")
    var apnsProductionURL: String?

    @Option(
        name: .long, help: "apns: sandbox host, for tokens of development builds. (env: CONSOLE_APNS_SANDBOX_URL, default: https://api.sandbox.push.apple.com)")
    var apnsSandboxURL: String?

    @Option(
        name: .long,
        help:
            "apns: a PEM file of certificates to trust besides the system's (the sandbox's stand-in). Verification is never turned off. (env: CONSOLE_APNS_CA_FILE)"
    )
    var apnsCAFile: String?

    /// The bundle id, also needed where no transport is set up.
    var topic: String { EnvironmentOption.string(apnsTopic, "CONSOLE_APNS_TOPIC", default: "org.bookcorners.app") }

    /// The delivery configuration; `defaultTransport` and `demoAPNs` let `demo` point at its stand-in.
    func configuration(databasePath: String, defaultTransport: String = "spool", demoAPNs: APNsConfiguration? = nil) throws -> OutboxDeliveryConfiguration {
        let policy: DeliveryPolicy
        do {
            policy = try DeliveryPolicy.parse(
                EnvironmentOption.string(outboxPolicy, "CONSOLE_OUTBOX_POLICY", default: ""),
                bookCornersPushesOff: bookCornersPushesOff || EnvironmentOption.string(nil, "CONSOLE_BOOK_CORNERS_PUSHES_OFF", default: "0") == "1")
        } catch {
            throw ValidationError("--outbox-policy (CONSOLE_OUTBOX_POLICY): \(error.description)")
        }
        let attempts = try EnvironmentOption.integer(outboxMaxAttempts, "CONSOLE_OUTBOX_MAX_ATTEMPTS", default: 10)
        guard (1...1_000).contains(attempts) else {
            throw ValidationError("--outbox-max-attempts (CONSOLE_OUTBOX_MAX_ATTEMPTS) must be 1 to 1000, got \(attempts).")
        }
        var dispatcher = OutboxDispatcher.Configuration()
        dispatcher.maxAttempts = attempts
        let name = EnvironmentOption.string(outboxTransport, "CONSOLE_OUTBOX_TRANSPORT", default: defaultTransport).lowercased()
        let transport: OutboxDeliveryConfiguration.Transport
        switch name {
        case "off":
            transport = .off
        case "spool":
            let directory =
                EnvironmentOption.optionalString(outboxSpool, "CONSOLE_OUTBOX_SPOOL")
                ?? URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("outbox-spool").path
            transport = .spool(directory: directory)
        case "webhook":
            guard let url = EnvironmentOption.optionalString(outboxWebhookURL, "CONSOLE_OUTBOX_WEBHOOK_URL") else {
                throw ValidationError("--outbox-transport webhook needs --outbox-webhook-url (CONSOLE_OUTBOX_WEBHOOK_URL).")
            }
            do {
                transport = .webhook(
                    try WebhookConfiguration(
                        url: url, secretFile: EnvironmentOption.optionalString(outboxWebhookSecretFile, "CONSOLE_OUTBOX_WEBHOOK_SECRET_FILE"),
                        secretText: ProcessInfo.processInfo.environment["CONSOLE_OUTBOX_WEBHOOK_SECRET"]))
            } catch {
                throw ValidationError("webhook: \(error.description)")
            }
        case "apns":
            transport = .apns(try apnsConfiguration(demo: demoAPNs))
        default:
            throw ValidationError("--outbox-transport (CONSOLE_OUTBOX_TRANSPORT) must be spool, webhook, apns or off, got '\(name)'.")
        }
        return OutboxDeliveryConfiguration(transport: transport, policy: policy, dispatcher: dispatcher)
    }

    private func apnsConfiguration(demo: APNsConfiguration?) throws -> APNsConfiguration {
        let keyFile = EnvironmentOption.optionalString(apnsKeyFile, "CONSOLE_APNS_KEY_FILE")
        let keyID = EnvironmentOption.optionalString(apnsKeyID, "CONSOLE_APNS_KEY_ID")
        let teamID = EnvironmentOption.optionalString(apnsTeamID, "CONSOLE_APNS_TEAM_ID")
        var configuration: APNsConfiguration
        if let keyFile, let keyID, let teamID {
            configuration = APNsConfiguration(keyPath: keyFile, keyID: keyID, teamID: teamID, topic: topic)
        } else if let demo, keyFile == nil, keyID == nil, teamID == nil {
            configuration = demo
        } else {
            throw ValidationError(
                "--outbox-transport apns needs --apns-key-file, --apns-key-id and --apns-team-id (CONSOLE_APNS_KEY_FILE, CONSOLE_APNS_KEY_ID, CONSOLE_APNS_TEAM_ID)."
            )
        }
        if let text = EnvironmentOption.optionalString(apnsProductionURL, "CONSOLE_APNS_PRODUCTION_URL") {
            configuration.productionURL = try httpsURL(text, "--apns-production-url")
        }
        if let text = EnvironmentOption.optionalString(apnsSandboxURL, "CONSOLE_APNS_SANDBOX_URL") {
            configuration.sandboxURL = try httpsURL(text, "--apns-sandbox-url")
        }
        if let caFile = EnvironmentOption.optionalString(apnsCAFile, "CONSOLE_APNS_CA_FILE") {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw ValidationError("--apns-ca-file (CONSOLE_APNS_CA_FILE): cannot read \(caFile).")
            }
            configuration.caFilePath = caFile
        }
        return configuration
    }

    private func httpsURL(_ text: String, _ option: String) throws -> URL {
        guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
            throw ValidationError("\(option) must be an https URL such as https://api.push.apple.com, got '\(text)'.")
        }
        return url
    }
}
