import HTTPTypes

/// An APNs error answer: the status and Apple's documented `reason` string.
struct APNsRejection: Error, Equatable, Sendable {
    let status: HTTPResponse.Status
    let reason: String

    static let missingProviderToken = APNsRejection(status: .forbidden, reason: "MissingProviderToken")
    static let invalidProviderToken = APNsRejection(status: .forbidden, reason: "InvalidProviderToken")
    static let expiredProviderToken = APNsRejection(status: .forbidden, reason: "ExpiredProviderToken")
    static let missingTopic = APNsRejection(status: .badRequest, reason: "MissingTopic")
    static let topicDisallowed = APNsRejection(status: .badRequest, reason: "TopicDisallowed")
    static let invalidPushType = APNsRejection(status: .badRequest, reason: "InvalidPushType")
    static let badDeviceToken = APNsRejection(status: .badRequest, reason: "BadDeviceToken")
    static let badMessageID = APNsRejection(status: .badRequest, reason: "BadMessageId")
    static let badPriority = APNsRejection(status: .badRequest, reason: "BadPriority")
    static let badExpirationDate = APNsRejection(status: .badRequest, reason: "BadExpirationDate")
    static let payloadEmpty = APNsRejection(status: .badRequest, reason: "PayloadEmpty")
    /// Apple's table has no reason for a body that is not a JSON object; APNs still refuses one.
    static let badPayload = APNsRejection(status: .badRequest, reason: "BadPayload")
    static let badPath = APNsRejection(status: .notFound, reason: "BadPath")
    static let methodNotAllowed = APNsRejection(status: .methodNotAllowed, reason: "MethodNotAllowed")
    static let unregistered = APNsRejection(status: .gone, reason: "Unregistered")
    static let payloadTooLarge = APNsRejection(status: .contentTooLarge, reason: "PayloadTooLarge")
    static let tooManyRequests = APNsRejection(status: .tooManyRequests, reason: "TooManyRequests")
    static let serviceUnavailable = APNsRejection(status: .serviceUnavailable, reason: "ServiceUnavailable")
}
