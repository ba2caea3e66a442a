import Foundation
import ParleyPush
import Testing

@Suite("APNs responses: what each status and reason means")
struct APNsResponseTests {
    @Test("each status and reason has its verdict", arguments: [
        (200, nil, APNsVerdict.delivered(apnsID: "ID")),
        (410, "Unregistered", .tokenGone(reason: "Unregistered")),
        (410, nil, .tokenGone(reason: "Unregistered")),
        (400, "BadDeviceToken", .tokenGone(reason: "BadDeviceToken")),
        (400, "DeviceTokenNotForTopic", .tokenGone(reason: "DeviceTokenNotForTopic")),
        (403, "ExpiredProviderToken", .renewProviderToken(reason: "ExpiredProviderToken")),
        (403, "InvalidProviderToken", .renewProviderToken(reason: "InvalidProviderToken")),
        (429, "TooManyRequests", .retry(reason: "TooManyRequests", after: nil)),
        (500, "InternalServerError", .retry(reason: "InternalServerError", after: nil)),
        (503, "ServiceUnavailable", .retry(reason: "ServiceUnavailable", after: nil)),
        (502, nil, .retry(reason: "HTTP 502", after: nil)),
        (400, "BadPriority", .failed(reason: "BadPriority")),
        (400, "TopicDisallowed", .failed(reason: "TopicDisallowed")),
        (403, "MissingProviderToken", .failed(reason: "MissingProviderToken")),
        (413, "PayloadTooLarge", .failed(reason: "PayloadTooLarge")),
        (404, nil, .failed(reason: "HTTP 404")),
    ] as [(Int, String?, APNsVerdict)])
    func verdicts(status: Int, reason: String?, verdict: APNsVerdict) {
        #expect(APNsResponse(status: status, apnsID: "ID", reason: reason).verdict == verdict)
    }

    @Test("reads the reason from the JSON body, and Retry-After as seconds or an HTTP-date")
    func parsesTheParts() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)   // Mon, 21 Sep 2026 14:13:20 GMT
        let gone = APNsResponse(status: 410, apnsID: nil, body: Data(#"{"reason":"Unregistered","timestamp":1790000000000}"#.utf8),
                                retryAfter: nil, now: now)
        #expect(gone.reason == "Unregistered")
        #expect(APNsResponse(status: 503, apnsID: nil, body: Data("not json".utf8), retryAfter: " 3 ", now: now)
            == APNsResponse(status: 503, reason: nil, retryAfter: 3))
        #expect(APNsResponse(status: 503, apnsID: nil, body: Data(), retryAfter: "Mon, 21 Sep 2026 14:13:25 GMT", now: now).retryAfter == 5)
        #expect(APNsResponse(status: 503, apnsID: nil, body: Data(), retryAfter: "soon", now: now).retryAfter == nil)
        #expect(APNsResponse(status: 429, reason: "TooManyRequests", retryAfter: 2).verdict == .retry(reason: "TooManyRequests", after: 2))
    }
}
