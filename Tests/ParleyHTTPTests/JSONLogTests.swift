import Foundation
import Logging
import ParleyApp
import Testing

/// `log.format: json`: one object per line that a log shipper reads.
@Suite struct JSONLogTests {
    @Test func aLineIsOneJSONObjectWithTimeLevelLoggerMessageAndMetadata() throws {
        let bytes = JSONLogHandler.line(
            time: Date(timeIntervalSince1970: 1_795_348_800.25), level: .warning, label: "parley",
            message: "leg failed: \"dtls\"\nnext", metadata: ["leg": "l-1", "count": .stringConvertible(3), "message": "shadowed"])
        #expect(!bytes.contains(UInt8(ascii: "\n")), "one line")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
        #expect(object == [
            "time": "2026-11-22T12:00:00.250Z", "level": "warning", "logger": "parley",
            "message": "leg failed: \"dtls\"\nnext", "leg": "l-1", "count": "3",
        ])
    }
}
