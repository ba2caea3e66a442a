import Logging
import ParleyCore
import ParleyMail

/// Picks the mail transport the configuration names.
enum MailSetup {
    static func transport(_ config: ParleyConfiguration, logger: Logger) throws -> any MailTransport {
        let from = MailAddress(address: config.mail.fromAddress, name: config.mail.fromName)
        switch config.mail.transport {
        case "outbox":
            let directory = config.mail.outboxDirectory.isEmpty ? config.dataDirectory + "/outbox" : config.mail.outboxDirectory
            return OutboxMailTransport(directory: directory, from: from, logger: logger)
        case "smtp":
            let tls: SMTPConfiguration.TLSMode
            switch config.mail.smtpTLS {
            case "none": tls = .none
            case "starttls-if-available": tls = .startTLSIfAvailable
            case "starttls": tls = .requireStartTLS
            case "tls": tls = .implicit
            default:
                throw ParleyError(.internalFailure, code: "invalid_config", "mail.smtp.tls is none, starttls-if-available, starttls or tls")
            }
            let smtp = SMTPConfiguration(
                host: config.mail.smtpHost, port: config.mail.smtpPort, tls: tls,
                username: config.mail.smtpUsername.isEmpty ? nil : config.mail.smtpUsername,
                password: config.mail.smtpUsername.isEmpty ? nil : config.mail.smtpPassword,
                caCertificatePath: config.mail.smtpCAFile.isEmpty ? nil : config.mail.smtpCAFile,
                verifyCertificate: config.mail.smtpVerifyCertificate)
            return try SMTPMailTransport(configuration: smtp, from: from, logger: logger)
        default:
            throw ParleyError(.internalFailure, code: "invalid_config", "mail.transport is outbox or smtp")
        }
    }
}
