import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import NIOCore

/// What one request carries through middleware and controllers.
public struct ConsoleRequestContext: RequestContext, RemoteAddressRequestContext, HeadMarkingRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The signed-in staff member's session, once `SessionMiddleware` found one.
    public var session: StaffSession?
    /// The flash message for this page, consumed from the session.
    public var flash: String?
    /// The Undo the flash offers, when it is the message of a report decision the viewer just made.
    var undo: UndoOffer?
    /// The signed-in staff member's decisions not yet final, for the Pending actions panel.
    public var pendingActions: [ModerationAction] = []
    /// The mirror's names for the items of `pendingActions`, by `DecisionTargetName.key`.
    public var pendingActionTargets: [String: DecisionTargetName] = [:]
    /// When the session ends if the person does nothing more (idle timeout or its absolute end).
    public var sessionEndsAt: Date?
    /// Who is on call, as the header tells the signed-in staff member.
    var onCall: OnCallHeadline?
    /// The queue counts of the navigation, read from the mirror once per signed-in request, so
    /// every page's header has them (a page that reads the summary itself passes its own).
    var navigationCounts: ModerationSummary?
    /// Where this page's event stream starts (`RecentHeaders.Header.liveAfter`); nil when signed out.
    var liveAfter: Int64?
    /// When decisions on their way should really be sent, for every "sends at" a page shows.
    var sendSchedule = SendSchedule(limits: nil)
    /// Our id for this request: in the logs, in `X-Request-ID` to the backend, on error pages.
    public var requestID: String
    /// The address rate limits, lockouts and the audit log count against: the socket peer,
    /// or the client a trusted proxy names (`ClientAddressMiddleware`).
    public var clientAddress: String
    /// Where the database stood before the session was looked up (`ChangeStampMiddleware`).
    var stampBeforeSession: ChangeStamp?
    /// Receives the rendered page, when `RecentPageMiddleware` may keep a copy of it.
    var pageCapture: PageCapture?
    /// The request is a HEAD answered as a GET (`HeadAsGetMiddleware`): its body is never sent.
    var answersHead = false
    /// The signed-in staff member, for the request's log line (`RequestLogMiddleware`).
    let staff = RequestStaff()

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        // Hummingbird's own request id, so the id on an error page is the one in every log line.
        self.requestID = source.logger[metadataKey: "hb.request.id"]?.description ?? RandomToken.make(bytes: 9)
    }

    /// Forms are small; anything bigger is refused before it is read.
    public var maxUploadSize: Int { 64 * 1024 }

    /// Request bodies are the console's own forms: `request.decode(as:context:)` reads them as such.
    public var requestDecoder: FormBodyDecoder { FormBodyDecoder() }
}

extension ConsoleRequestContext {
    /// What the backend is told about this request: our id and, when configured, the client's address.
    func callContext(forwardClientAddress: Bool) -> CallContext {
        CallContext(requestID: requestID, forwardedFor: forwardClientAddress ? clientAddress : nil)
    }
}
