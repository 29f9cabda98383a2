import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// The rotation form's own fields: what the page fills in is accepted back, and a wrong value is named.
@Suite("The rotation form")
struct RotationFormTests {
    private let staff = [StaffMember(id: 1, username: "staff"), StaffMember(id: 2, username: "maria")]

    private func form(days: String = "1", zone: String) -> RotationForm {
        var form = RotationForm()
        form.members = "staff\r\nmaria"
        form.shiftDays = days
        form.handoff = "09:00"
        form.timeZone = zone
        form.startDate = "2026-11-23"
        return form
    }

    @Test("the zones UTC and GMT, as the page fills them in for a rotation kept in them, are accepted back; an abbreviation several zones share is not")
    func zonesThePageFillsIn() throws {
        #expect(try form(zone: "GMT").rotation(staff: staff).timeZone.secondsFromGMT() == 0)
        #expect(try form(zone: "UTC").rotation(staff: staff).timeZone.secondsFromGMT() == 0)
        #expect(try form(zone: "Europe/Rome").rotation(staff: staff).members == staff)
        #expect(throws: RotationError.unknownTimeZone("CET")) { try form(zone: "CET").rotation(staff: staff) }
    }

    @Test("a shift length that is not a number is named as typed, not reported as 0 days")
    func shiftDaysNotANumber() {
        #expect(throws: RotationError.badShiftDays("x")) { try form(days: "x", zone: "UTC").rotation(staff: staff) }
        #expect(RotationError.badShiftDays("x").description == "“\u{2068}x\u{2069}” is not a number of days: write a whole number from 1 to 28.")
    }
}
