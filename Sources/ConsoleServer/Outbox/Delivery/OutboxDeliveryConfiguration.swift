import Foundation

/// How the outbox delivers: which transport, which policy, how persistent.
public struct OutboxDeliveryConfiguration: Sendable {
    /// Where messages go.
    public enum Transport: Sendable {
        /// No dispatcher runs: messages wait in the outbox.
        case off
        /// A transport built by the caller (tests, benchmarks), with the words the Outbox page shows for it.
        case custom(any OutboxTransport, description: String)
    }

    public var transport: Transport
    public var policy: DeliveryPolicy
    public var dispatcher: OutboxDispatcher.Configuration

    public init(transport: Transport = .off, policy: DeliveryPolicy = .standard, dispatcher: OutboxDispatcher.Configuration = .init()) {
        self.transport = transport
        self.policy = policy
        self.dispatcher = dispatcher
    }
}
