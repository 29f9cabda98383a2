/// Why a form the console received cannot be acted on. Every case becomes the same 400 page
/// (`ConsoleError.badInput`), whose text says what was wrong and what to do.
enum FormError: Error, Sendable, Equatable {
    /// The request's body is not `application/x-www-form-urlencoded`.
    case notAForm
    /// The body is form-encoded but garbled: bad percent-escapes, broken names, a field sent twice.
    case unreadable
    /// A decision this kind of item does not take; `allowed` are those it does.
    case unknownDecision(allowed: [Decision])
    /// A bulk form without approve or reject.
    case bulkDecisionMissing
    case confirmationDecisionMissing
    /// The status the moderator saw is missing or is not one the item can have.
    case statusSeenMissing
    /// The idempotency key of a single decision.
    case keyMissing
    /// The list form's key, which a row's one-click approval builds its own key from.
    case listKeyMissing
    /// The bulk confirmation lost its key.
    case confirmationIncomplete
    case reasonRequired
    case reasonTooLong(characters: Int, limit: Int)
    case noLibrarySelected
    /// Bulk decisions are for waiting libraries: reversing a decision is done one by one, seeing who made it and why.
    case onlyWaitingLibraries
    case tooManyLibrariesSelected(limit: Int)
    /// A bulk form naming a library the mirror has never seen (an old page, or a hand-made form).
    case unknownLibrary(String)
    /// Approving in bulk, every library chosen has a strong reason to look first.
    case everyLibraryNeedsALook(count: Int)
    /// The sign-in form without a login or a password.
    case credentialsMissing
    /// A decision on a report or photo (`noun`) the mirror has never held: not one of the items
    /// the console shows. `typed` is the reason as typed, given back.
    case neverMirrored(noun: String, id: Int, typed: String)

    /// What a staff member reads: what was wrong, and what to do.
    var message: String {
        switch self {
        case .notAForm:
            "The console only reads forms sent from its own pages, and this request did not carry one. Go back, reload the page and try again."
        case .unreadable:
            "The form arrived garbled (a field was repeated or badly encoded), so nothing was done. Go back, reload the page and try again."
        case .unknownDecision(let allowed):
            "Choose one of: \(allowed.map(\.rawValue).sorted().joined(separator: ", "))."
        case .bulkDecisionMissing: "Choose approve or reject for the selected libraries."
        case .confirmationDecisionMissing: "Choose approve or reject."
        case .statusSeenMissing: "The form did not say which status you saw. Reload the page and decide again."
        case .keyMissing: "The form is missing its key. Reload the page and decide again."
        case .listKeyMissing: "The list form is missing its key. Reload the page and decide again."
        case .confirmationIncomplete: "The confirmation form is incomplete; start again from the list."
        case .reasonRequired: "A rejection needs a reason: the submitter reads it. Pick one or write your own."
        case .reasonTooLong(let characters, let limit):
            "The reason is \(characters) characters; Book Corners accepts at most \(limit). Shorten it and try again."
        case .noLibrarySelected: "Select at least one library first."
        case .onlyWaitingLibraries: "Only waiting libraries can be decided in bulk. To change a decision, open the library: its page shows who made it and why."
        case .tooManyLibrariesSelected(let limit): "Select at most \(limit) libraries at once."
        case .unknownLibrary(let slug):
            "The console knows no library “\(slug)”, so nothing was recorded. Reload the list and select again."
        case .everyLibraryNeedsALook(let count):
            count == 1
                ? "The library you selected has a strong reason to look first, so it is not approved in bulk: open it and decide on its page."
                : "Each library you selected has a strong reason to look first, so none is approved in bulk: open each and decide on its page."
        case .credentialsMissing: "Enter your Book Corners username or e-mail and your password."
        case .neverMirrored(let noun, let id, let typed):
            "The console has never seen a \(noun) numbered \(id) at Book Corners, so nothing was recorded and nothing was sent. "
                + "Check the number (the form may come from an old page or another console), or open the \(noun)s from the menu and decide there."
                + (typed.isEmpty ? "" : " What you typed, kept here to copy: “\(typed)”")
        }
    }
}
