/// The reasons page's settings form, as a browser sends it: every field text, any missing.
struct ConcernSettingsForm: Decodable, Sendable {
    var strongDuplicateMetres: String?
    var duplicateMetres: String?
    var sameNameMetres: String?
    var burstSubmissions: String?
    var strongRejections: String?
    /// One word or phrase a line.
    var suspectWords: String?
    /// The fingerprint of the settings the form was shown with: a colleague's change since is not overwritten unseen.
    var seen: String?
}
