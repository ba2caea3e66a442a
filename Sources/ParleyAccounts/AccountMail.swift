import Foundation
import ParleyMail

/// The two mails Accounts sends, plain text and HTML.
enum AccountMail {
    static func verification(to user: UserRecord, link: String) -> MailMessage {
        let text = """
            Hello \(user.name),

            Welcome to Parley. Confirm your e-mail address by opening this link:

            \(link)

            If you did not create a Parley account, ignore this mail.
            """
        let html = """
            <!doctype html><html><body style="font-family:-apple-system,Helvetica,Arial,sans-serif">
            <p>Hello \(escape(user.name)),</p>
            <p>Welcome to Parley. Confirm your e-mail address:</p>
            <p><a href="\(escape(link))">Verify my address</a></p>
            <p style="color:#666">If the button does not work, open \(escape(link))</p>
            <p style="color:#666">If you did not create a Parley account, ignore this mail.</p>
            </body></html>
            """
        return MailMessage(to: user.email ?? "", toName: user.name, subject: "Confirm your Parley address", text: text, html: html)
    }

    /// The app link, and when the web client is served a link to its reset screen as well.
    static func passwordReset(to user: UserRecord, token: String, link: String, browserLink: String? = nil) -> MailMessage {
        let text = """
            Hello \(user.name),

            Someone (hopefully you) asked to reset your Parley password. Open this link in the app:

            \(link)
            \(browserLink.map { "\nor in your browser:\n\n\($0)\n" } ?? "")
            or enter this code: \(token)

            It works once, within an hour. If you did not ask, ignore this mail: your password stays as it is.
            """
        let html = """
            <!doctype html><html><body style="font-family:-apple-system,Helvetica,Arial,sans-serif">
            <p>Hello \(escape(user.name)),</p>
            <p>Someone (hopefully you) asked to reset your Parley password.</p>
            <p><a href="\(escape(link))">Reset my password\(browserLink == nil ? "" : " in the app")</a></p>
            \(browserLink.map { "<p><a href=\"\(escape($0))\">Reset it in your browser</a></p>" } ?? "")
            <p>or enter this code in the app: <code>\(escape(token))</code></p>
            <p style="color:#666">It works once, within an hour. If you did not ask, ignore this mail.</p>
            </body></html>
            """
        return MailMessage(to: user.email ?? "", toName: user.name, subject: "Reset your Parley password", text: text, html: html)
    }

    static func emailChangeCode(name: String, to address: String, code: String, minutes: Int) -> MailMessage {
        let text = """
            Hello \(name),

            To move your Parley account to this address, enter this code in the app:

            \(code)

            It works once, within \(minutes) minutes. If you did not ask for this, ignore this mail: nothing changes.
            """
        let html = """
            <!doctype html><html><body style="font-family:-apple-system,Helvetica,Arial,sans-serif">
            <p>Hello \(escape(name)),</p>
            <p>To move your Parley account to this address, enter this code in the app:</p>
            <p style="font-size:24px;letter-spacing:4px"><code>\(escape(code))</code></p>
            <p style="color:#666">It works once, within \(minutes) minutes. If you did not ask for this, ignore this mail.</p>
            </body></html>
            """
        return MailMessage(to: address, toName: name, subject: "Your Parley code: \(code)", text: text, html: html)
    }

    static func emailChanged(name: String, to oldAddress: String, newEmail: String) -> MailMessage {
        let text = """
            Hello \(name),

            Your Parley account's e-mail address was changed to \(newEmail). Mail about the account goes there from now on.

            If you did not make this change, reset your password and contact us.
            """
        let html = """
            <!doctype html><html><body style="font-family:-apple-system,Helvetica,Arial,sans-serif">
            <p>Hello \(escape(name)),</p>
            <p>Your Parley account's e-mail address was changed to <b>\(escape(newEmail))</b>. Mail about the account goes there from now on.</p>
            <p style="color:#666">If you did not make this change, reset your password and contact us.</p>
            </body></html>
            """
        return MailMessage(to: oldAddress, toName: name, subject: "Your Parley e-mail address was changed", text: text, html: html)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
