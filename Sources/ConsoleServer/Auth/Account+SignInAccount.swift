import BookCornersAPI
import Foundation
import Hummingbird
import Logging
import ModerationStore
import ModerationVocabulary
import Mustache

extension Account {
    /// The account as the sign-in lockout keys it.
    var signInAccount: SignInAccount { SignInAccount(id: id, username: username, email: email) }
}
