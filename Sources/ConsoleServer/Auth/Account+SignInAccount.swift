import BookCornersAPI
import Foundation
import ModerationVocabulary
import Hummingbird
import Logging
import ModerationStore
import Mustache

extension Account {
    /// The account as the sign-in lockout keys it.
    var signInAccount: SignInAccount { SignInAccount(id: id, username: username, email: email) }
}
