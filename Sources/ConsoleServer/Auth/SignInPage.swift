import BookCornersAPI
import Foundation
import Hummingbird
import Logging
import ModerationStore
import ModerationVocabulary
import Mustache

struct SignInPage: MustacheParent {
    let layout: LayoutModel
    let login: String
    let next: String
    /// The sign-in form's own token, paired with a cookie: there is no session yet to hold one.
    let signInToken: String
    let message: String?
    let isError: Bool
    /// A kept decision form's key, carried through sign-in; "" for none.
    var kept = ""
    let signInURL = SiteURL.signIn.path
    /// With the username already there (a refused sign-in, a sign-in link), the cursor waits in
    /// the password field (`autofocus`, so it works without script); otherwise in the login field.
    var focusPassword: Bool { !login.isEmpty }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "login": login
        case "next": next
        case "signInToken": signInToken
        case "message": message
        case "isError": isError
        case "focusPassword": focusPassword
        case "kept": kept
        case "hasKept": !kept.isEmpty
        case "signInURL": signInURL
        default: nil
        }
    }
}
