import Foundation

/// How the outbox delivers: which transport, which policy, how persistent.
public struct OutboxDeliveryConfiguration: Sendable {
    /// Where messages go.
    public enum Transport: Sendable {
        /// No dispatcher runs: messages wait in the outbox.
        case off
        /// Each message written as `<apns-id>.json` into a directory, for a separate sender.
        case spool(directory: String)
        /// Each message POSTed, signed, to a receiver.
        case webhook(WebhookConfiguration)
        /// Each message sent to every active device of its recipient through Apple's provider API.
        case apns(APNsConfiguration)
        /// A transport built by the caller (tests, benchmarks), with the words the Outbox page shows for it.
        case custom(any OutboxTransport, description: String)
    }

    public var transport: Transport
    public var policy: DeliveryPolicy
    public var dispatcher: OutboxDispatcher.Configuration
    /// The demo's page of pushes the APNs stand-in received, linked from the Outbox page.
    public var watchURL: String?

    /// The transport this configuration names, ready to deliver, with the words the Outbox page
    /// shows for it; nil when delivery is off. Throws when a transport cannot be set up.
    func makeTransport() throws -> (transport: any OutboxTransport, description: String)? {
        switch transport {
        case .off:
            return nil
        case .spool(let directory):
            return (SpoolTransport(directory: directory), "Written to the spool directory \(directory), one file per message, for a separate sender.")
        case .webhook(let configuration):
            return (WebhookTransport(configuration: configuration), "POSTed, signed, to \(configuration.url.absoluteString).")
        case .apns(let configuration):
            let token = APNsProviderToken(key: try configuration.loadSigningKey(), keyID: configuration.keyID, teamID: configuration.teamID)
            let trusted = configuration.caFilePath.map { ", also trusting the certificates in \($0)" } ?? ""
            return (
                try APNsTransport(configuration: configuration, providerToken: token),
                "Sent to APNs as team \(configuration.teamID), key \(configuration.keyID): production devices at \(configuration.productionURL.absoluteString), sandbox devices at \(configuration.sandboxURL.absoluteString)\(trusted)."
            )
        case .custom(let transport, let description):
            return (transport, description)
        }
    }

    public init(transport: Transport = .off, policy: DeliveryPolicy = .standard, dispatcher: OutboxDispatcher.Configuration = .init()) {
        self.transport = transport
        self.policy = policy
        self.dispatcher = dispatcher
    }
}
