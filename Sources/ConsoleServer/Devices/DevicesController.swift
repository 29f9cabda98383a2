import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// My devices: a staff member adds or removes their own device tokens, so pushes meant for
/// them (on-call alerts among them) reach their phone.
struct DevicesController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.devices.pattern) { request, context in
            try await page(context: context, request: request)
        }
        router.post(SiteURL.Route.devices.pattern, use: add)
        router.post(SiteURL.Route.deviceRemove.pattern, use: remove)
    }

    private func page(context: ConsoleRequestContext, request: Request, problem: String? = nil, form: DeviceForm = DeviceForm()) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let devices = try await store.devices(userID: session.staffId)
        let page = DevicesPage(
            layout: LayoutModel(context: context, title: "My devices", active: nil, summary: nil),
            devices: devices.map(DevicesPage.Row.init), isEmpty: devices.isEmpty, userID: session.staffId,
            problem: problem ?? "", hasProblem: problem != nil, token: form.token ?? "",
            environments: Device.Environment.allCases.map {
                FilterOption(
                    value: $0.rawValue, label: $0 == .production ? "Production (App Store, TestFlight)" : "Sandbox (Xcode builds)",
                    selected: $0.rawValue == (form.environment ?? Device.Environment.production.rawValue))
            })
        var response = try renderer.render(page, with: "devices").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    @Sendable func add(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: DeviceForm.self, context: context)
        guard let environment = form.environment.flatMap(Device.Environment.init(rawValue:)) else {
            return try await page(context: context, request: request, problem: "Choose production or sandbox.", form: form)
        }
        let device: Device
        do {
            device = try await store.addDevice(userID: session.staffId, token: form.token ?? "", environment: environment, now: Date())
        } catch DeviceStoreError.invalidToken {
            return try await page(
                context: context, request: request,
                problem: "A device token is 64 hexadecimal digits (0–9, a–f), as the app shows it. Nothing was added.", form: form)
        } catch DeviceStoreError.takenByAnotherUser {
            return try await page(
                context: context, request: request, problem: "That token belongs to another account, so it was not added.", form: form)
        }
        try await store.appendAudit(
            audit.staffEntry(
                "device.add", targetKind: "device", targetId: String(device.id ?? 0), targetName: DeviceText.short(device.token),
                statusAfter: "active", context: context, userAgent: request.userAgent))
        try await sessions.flash("Added \(DeviceText.short(device.token)) (\(environment.rawValue)): your pushes go to it.", sessionID: session.id)
        return .redirect(to: SiteURL.devices.path, type: .normal)
    }

    @Sendable func remove(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let text = SiteURL.Route.deviceRemove.value(in: context.parameters), let id = Int64(text) else { throw ConsoleError.notFound }
        let device = try await store.devices(userID: session.staffId).first { $0.id == id }
        guard let device else { throw ConsoleError.notFound }
        do {
            try await store.removeDevice(id: id, userID: session.staffId)
        } catch DeviceStoreError.notFound {
            throw ConsoleError.notFound
        }
        try await store.appendAudit(
            audit.staffEntry(
                "device.remove", targetKind: "device", targetId: String(id), targetName: DeviceText.short(device.token),
                statusBefore: device.state.rawValue, context: context, userAgent: request.userAgent))
        try await sessions.flash("Removed \(DeviceText.short(device.token)): nothing more is pushed to it.", sessionID: session.id)
        return .redirect(to: SiteURL.devices.path, type: .normal)
    }
}
