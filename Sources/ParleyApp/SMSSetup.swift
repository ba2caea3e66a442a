import Logging
import ParleyCore
import ParleySMS

/// Picks the SMS transport the configuration names.
enum SMSSetup {
    static func transport(_ config: ParleyConfiguration, logger: Logger) throws -> any SMSTransport {
        switch config.sms.transport {
        case "outbox":
            let directory = config.sms.outboxDirectory.isEmpty ? config.dataDirectory + "/sms-outbox" : config.sms.outboxDirectory
            return OutboxSMSTransport(directory: directory, logger: logger)
        case "http":
            guard !config.sms.httpURL.isEmpty, !config.sms.httpAccountID.isEmpty, !config.sms.httpAuthToken.isEmpty,
                  !config.sms.httpFrom.isEmpty
            else {
                throw ParleyError(.internalFailure, code: "invalid_config", "sms.transport http needs sms.http.url, accountId, authToken and from")
            }
            return HTTPSMSTransport(configuration: .init(
                baseURL: config.sms.httpURL, accountID: config.sms.httpAccountID, authToken: config.sms.httpAuthToken,
                from: config.sms.httpFrom), logger: logger)
        default:
            throw ParleyError(.internalFailure, code: "invalid_config", "sms.transport is outbox or http")
        }
    }
}
