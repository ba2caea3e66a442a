import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore

/// `/v1/auth/*`: the routes that work without an access token.
struct AuthRoutes {
    let accounts: AccountService
    let users: UserPresenter
    let maxAvatarBytes: Int

    struct RegisterBody: Decodable { let name: String; let email: String; let password: String; let dateOfBirth: String }
    struct TokenBody: Decodable { let token: String }
    struct EmailBody: Decodable {
        let email: String

        /// Something that is no address at all (the empty string included) is a malformed request,
        /// not an unknown account: it gets 400, where any address gets the same 202 whether or not
        /// it has an account.
        func requireAddress() throws {
            guard AccountRules.isValidEmail(AccountRules.normalizeEmail(email)) else {
                throw ParleyError.invalidField("email", "not an e-mail address")
            }
        }
    }
    /// `email` or `phoneNumber`, exactly one.
    struct LoginBody: Decodable { let email: String?; let phoneNumber: String?; let password: String; let deviceName: String? }
    struct PhoneCodeBody: Decodable { let phoneNumber: String }
    struct PhoneCodeSent: ResponseEncodable { let phoneNumber: String; let expiresIn: Int }
    struct PhoneRegisterBody: Decodable {
        let phoneNumber: String; let code: String; let password: String; let firstName: String; let lastName: String; let deviceName: String?
    }
    struct RefreshBody: Decodable { let refreshToken: String }
    struct LogoutBody: Decodable { let refreshToken: String? }
    struct ResetConfirmBody: Decodable { let token: String; let newPassword: String }

    struct UserEnvelope: ResponseEncodable { let user: UserBody }
    struct GrantBody: ResponseEncodable {
        let accessToken: String
        let refreshToken: String
        let tokenType = "Bearer"
        let expiresIn: Int
        let user: UserBody
    }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.post("register", use: register)
        group.get("verify", use: verifyPage)
        group.post("verify", use: verify)
        group.post("verify/confirm", use: confirmPage)
        group.post("resend-verification", use: resendVerification)
        group.post("login", use: login)
        group.post("phone/code", use: phoneCode)
        group.post("phone/register", use: phoneRegister)
        group.post("refresh", use: refresh)
        group.post("logout", use: logout)
        group.post("password-reset", use: requestReset)
        group.post("password-reset/confirm", use: confirmReset)
    }

    /// JSON, or multipart/form-data with the same fields and an optional `avatar` file.
    func register(_ request: Request, context: ParleyRequestContext) async throws -> EditedResponse<UserEnvelope> {
        let user: UserRecord
        if let contentType = request.headers[.contentType], contentType.lowercased().hasPrefix("multipart/") {
            // Counted before the body is read: a limited client stages no avatar on disk.
            let admitted = try await accounts.admitRegistration(clientAddress: context.clientAddress)
            user = try await accounts.register(try await multipartRegistration(request, contentType: contentType), admitted: admitted)
        } else {
            // A JSON body is small and held in memory; one that cannot be read is not counted.
            let body = try await RequestBody.json(RegisterBody.self, from: request)
            user = try await accounts.register(
                .init(name: body.name, email: body.email, password: body.password, dateOfBirth: body.dateOfBirth),
                clientAddress: context.clientAddress)
        }
        return EditedResponse(status: .created, response: UserEnvelope(user: users.body(user, viewer: user.id)))
    }

    /// The fields, and an avatar file read as it arrives (multipart-kit's streaming parser) within
    /// `maxAvatarBytes`, staged on disk until registration takes it.
    func multipartRegistration(_ request: Request, contentType: String) async throws -> AccountService.Registration {
        let boundary = try UploadReceiver.boundary(contentType)
        let form = try await UploadReceiver.receiveForm(
            request.body, boundary: boundary, fileField: "avatar", to: accounts.avatarStagingPath(), limit: maxAvatarBytes,
            overLimit: AccountErrors.imageTooLarge)
        defer { if let file = form.file { unlink(file.path) } }
        let avatar = try form.file.map { try accounts.stagedAvatar($0) }
        return .init(name: try form.field("name"), email: try form.field("email"), password: try form.field("password"),
                     dateOfBirth: try form.field("dateOfBirth"), avatar: avatar)
    }

    /// The page the mailed link opens: says whether the address is now verified.
    /// The mailed link: a page whose button confirms (GET verifies nothing).
    func verifyPage(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        guard let token = request.uri.queryParameters["token"].map(String.init), !token.isEmpty else {
            return VerificationPage.response(status: .badRequest, title: "Link incomplete",
                                             message: "This verification link is missing its token. Open the link from the mail again.")
        }
        return VerificationPage.response(status: .ok, title: "Verify your address",
                                         message: "Press the button to confirm this e-mail address for Parley.", confirmToken: token)
    }

    /// The page's button: `token=…` as a form; answers a page either way.
    func confirmPage(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = String(decoding: try await RequestBody.bytes(request, limit: 4096), as: UTF8.self)
        let token = body.split(separator: "&").lazy.compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "token" else { return nil }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }.first
        guard let token, !token.isEmpty else {
            return VerificationPage.response(status: .badRequest, title: "Link incomplete",
                                             message: "This verification link is missing its token. Open the link from the mail again.")
        }
        do {
            let user = try await accounts.verifyEmail(token: token)
            return VerificationPage.response(status: .ok, title: "Address verified",
                                             message: "\(user.email ?? "") is verified. You can go back to the app and log in.")
        } catch let error as ParleyError where error.code == AccountErrors.invalidToken.code {
            return VerificationPage.response(status: .badRequest, title: "Link expired",
                                             message: "This link was already used or has expired. Ask the app to send a new one.")
        }
    }

    func verify(_ request: Request, context: ParleyRequestContext) async throws -> UserEnvelope {
        let body = try await RequestBody.json(TokenBody.self, from: request)
        let user = try await accounts.verifyEmail(token: body.token)
        return UserEnvelope(user: users.body(user, viewer: user.id))
    }

    func resendVerification(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = try await RequestBody.json(EmailBody.self, from: request)
        try body.requireAddress()
        await accounts.resendVerification(email: body.email)
        return Response(status: .accepted)
    }

    func login(_ request: Request, context: ParleyRequestContext) async throws -> GrantBody {
        let body = try await RequestBody.json(LoginBody.self, from: request)
        switch (body.email, body.phoneNumber) {
        case (let email?, nil):
            return present(try await accounts.login(
                email: email, password: body.password, deviceName: body.deviceName, clientAddress: context.clientAddress))
        case (nil, let number?):
            return present(try await accounts.login(
                phoneNumber: number, password: body.password, deviceName: body.deviceName, clientAddress: context.clientAddress))
        default:
            throw ParleyError.badRequest("Log in with either email or phoneNumber", code: "invalid_login")
        }
    }

    /// Texts a code that proves the number, for `phone/register`.
    func phoneCode(_ request: Request, context: ParleyRequestContext) async throws -> EditedResponse<PhoneCodeSent> {
        let body = try await RequestBody.json(PhoneCodeBody.self, from: request)
        let number = try accounts.normalizePhoneNumber(body.phoneNumber)
        let lifetime = try await accounts.requestPhoneCode(phoneNumber: number.e164, clientAddress: context.clientAddress)
        return EditedResponse(status: .accepted, response: PhoneCodeSent(phoneNumber: number.e164, expiresIn: lifetime))
    }

    /// Signs up with a number, its texted code, a password and a name; signs this device in.
    func phoneRegister(_ request: Request, context: ParleyRequestContext) async throws -> EditedResponse<GrantBody> {
        let body = try await RequestBody.json(PhoneRegisterBody.self, from: request)
        let grant = try await accounts.registerPhone(.init(
            phoneNumber: body.phoneNumber, code: body.code, password: body.password, firstName: body.firstName,
            lastName: body.lastName, deviceName: body.deviceName), clientAddress: context.clientAddress)
        return EditedResponse(status: .created, response: present(grant))
    }

    func refresh(_ request: Request, context: ParleyRequestContext) async throws -> GrantBody {
        let body = try await RequestBody.json(RefreshBody.self, from: request)
        return present(try await accounts.refresh(refreshToken: body.refreshToken))
    }

    /// Ends the session of the bearer token, or else the one the refresh token belongs to.
    func logout(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = try await RequestBody.optionalJSON(LogoutBody.self, from: request)
        var principal: Principal?
        if let token = request.bearerToken { principal = try? await accounts.authenticate(accessToken: token) }
        guard try await accounts.logout(principal: principal, refreshToken: body.refreshToken) else {
            throw ParleyError.unauthenticated
        }
        return Response(status: .noContent)
    }

    func requestReset(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = try await RequestBody.json(EmailBody.self, from: request)
        try body.requireAddress()
        await accounts.requestPasswordReset(email: body.email)
        return Response(status: .accepted)
    }

    func confirmReset(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = try await RequestBody.json(ResetConfirmBody.self, from: request)
        try await accounts.confirmPasswordReset(token: body.token, newPassword: body.newPassword)
        return Response(status: .noContent)
    }

    func present(_ grant: SessionGrant) -> GrantBody {
        GrantBody(accessToken: grant.accessToken, refreshToken: grant.refreshToken, expiresIn: grant.expiresIn,
                  user: users.body(grant.user, viewer: grant.user.id))
    }
}
