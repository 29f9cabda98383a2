import ModerationStore
import Testing

/// What pages call the audit log's actions: words people say, never the stored machine name.
@Suite("Audit actions in words")
struct AuditActionNameTests {
    @Test(
        "each action the console records reads as people say it",
        arguments: [
            ("library.approve", "Library approved"), ("library.returnToPending", "Library returned to pending"), ("session.signIn", "Signed in"),
            ("report.reopen", "Report reopened"), ("outbox.send", "Held push sent"), ("concernSettings.update", "Reasons to look changed"),
            ("observed.library.approved", "Library approved outside the console"), ("observed.report.open", "Report reopened outside the console"),
            ("observed.photo.deleted", "Photo deleted outside the console"),
        ])
    func known(action: String, words: String) {
        #expect(AuditActionName.of(action) == words)
    }

    @Test("an action this version does not know (a newer console's) still reads as words, made from its parts")
    func unknown() {
        #expect(AuditActionName.of("library.set.closed") == "Library set closed")
        #expect(AuditActionName.of("shelfCheck.markAsFull") == "Shelf check mark as full")
        #expect(AuditActionName.of("") == "Unnamed action")
        #expect(AuditActionName.of("...") == "Unnamed action")
    }
}
