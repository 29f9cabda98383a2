import Foundation
import NIOPosix

/// Writes each message as `<apns-id>.json` into a directory, for a separate sender or for
/// inspection. A file appears whole or not at all: it is written under a hidden temporary
/// name, synced, then renamed, so a reader listing `*.json` never sees half a message.
public struct SpoolTransport: OutboxTransport {
    public let name = "spool"
    /// Where the files go; created (mode 0700) when missing.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult] {
        let id = delivery.message.id
        guard Self.isSafeFileName(id) else {
            return [DeliveryResult(outcome: .failed, reason: "the message id \(id) cannot name a spool file; discard the message")]
        }
        let body: Data
        do {
            body = try OutboxEnvelope(delivery).encoded()
        } catch {
            return [DeliveryResult(outcome: .failed, reason: (error as? OutboxEnvelopeError)?.description ?? "the message could not be encoded as JSON")]
        }
        let writer = SpoolFileWriter(directory: directory)
        do {
            // fsync can take a while on a busy disk: keep it off the cooperative pool.
            try await NIOThreadPool.singleton.runIfActive { try writer.store(body, as: "\(id).json") }
            return [DeliveryResult(outcome: .delivered)]
        } catch let error as SpoolWriteError {
            return [DeliveryResult(outcome: .retry, reason: error.description)]
        } catch {
            return [DeliveryResult(outcome: .retry, reason: "the spool file for \(id) could not be written (the server is shutting down)")]
        }
    }

    /// Message ids are UUIDs; anything else (a `/`, a leading dot) must not become a path.
    private static func isSafeFileName(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 200 && id.first != "."
            && id.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45 || $0 == 95 || $0 == 46 }
    }
}
