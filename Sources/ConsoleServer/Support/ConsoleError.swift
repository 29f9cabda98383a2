import BookCornersAPI
import Foundation
import Hummingbird

/// Failures a staff member can meet in the console, each mapped once to a page.
enum ConsoleError: Error, Sendable {
    case notFound
    case csrfMismatch
    /// A POST a browser says was sent by another site.
    case crossOrigin
    case formTooLarge
    case badInput(String)
    case backend(BackendError)
    /// An export the audit log could not record: it is not made.
    case exportNotRecorded
    /// Book Corners has not confirmed the viewer is staff since `since`, past the grace.
    case staffUnconfirmed(since: Date, grace: TimeInterval)

    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .csrfMismatch: .forbidden
        case .crossOrigin: .forbidden
        case .formTooLarge: .contentTooLarge
        case .badInput: .badRequest
        case .exportNotRecorded, .staffUnconfirmed: .serviceUnavailable
        case .backend(.notFound): .notFound
        case .backend(.rateLimited): .tooManyRequests
        case .backend(.notStaff): .forbidden
        case .backend: .serviceUnavailable
        }
    }

    /// Refused before any of the form was read or acted on: sending it again (from a fresh page) is safe.
    var refusesTheWholeForm: Bool {
        switch self {
        case .csrfMismatch, .crossOrigin, .formTooLarge: true
        default: false
        }
    }

    var title: String {
        switch self {
        case .notFound, .backend(.notFound): "Not found"
        case .csrfMismatch: "This form has expired"
        case .crossOrigin: "This form came from another site"
        case .formTooLarge: "That was too much text"
        case .badInput: "That did not work"
        case .exportNotRecorded: "The export was not made"
        case .staffUnconfirmed: "Book Corners cannot confirm you are staff"
        case .backend(.rateLimited): "Book Corners asks us to slow down"
        case .backend: "Book Corners is not answering properly"
        }
    }

    var message: String {
        switch self {
        case .notFound: "There is no page here. Check the address, or go back to the dashboard."
        case .csrfMismatch:
            "The form was sent without a valid security token, perhaps from an old tab, so nothing was done. Open its page again and send it from there: what you had typed in this tab is offered back in the form, if your browser kept it."
        case .crossOrigin:
            "The console only accepts forms sent from its own pages, and this one was sent from another site, so nothing was done. If you meant to do this, open the console directly and do it from there."
        case .formTooLarge:
            "The form was larger than the console accepts (64 KB), so nothing was done. Open its page again: what you had typed in this tab is offered back in the form, if your browser kept it, to shorten and send."
        case .badInput(let message): message
        case .exportNotRecorded:
            "The export was not made: every export is recorded in the audit log first, and the log could not record this one. Try again in a moment; if it keeps happening, tell the console's maintainers (the console's log says why)."
        case .backend(let error): error.staffMessage
        case .staffUnconfirmed(let since, let grace):
            "Book Corners has not answered since \(TeamClock.stamp(since)), so the console cannot confirm that you are still staff, and it shows no pages once \(Int((grace / 60).rounded())) minutes have passed without a confirmation. Your session is kept: pages come back as soon as Book Corners answers. Decisions you recorded before are kept too, and go out only once Book Corners accepts them from you. Nothing you send now is recorded."
        }
    }
}
