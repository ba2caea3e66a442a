extension SessionDescription {
    /// Parses a session description (RFC 8866 §5) with CRLF or LF line ends.
    ///
    /// Checks the overall shape (v=0 first; o=, s= present; well-formed c=, t=, m=) and the
    /// grammar of the attributes WebRTC relies on (rtpmap, fmtp, rtcp-fb, extmap, ssrc,
    /// ssrc-group, fingerprint, setup, candidate, group, msid, mid); other attributes and
    /// blank lines are kept or skipped without complaint.
    public init(parsing text: String) throws(SDPParseError) {
        var lines: [(number: Int, text: Substring)] = []
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let line = raw.trimmingSpaces
            if !line.isEmpty { lines.append((number, line)) }
        }
        guard let first = lines.first else { throw SDPParseError(.empty, line: 0, text: "") }
        guard first.text.hasPrefix("v=") else { throw SDPParseError(.missingVersion, line: first.number, text: String(first.text)) }
        guard first.text == "v=0" else { throw SDPParseError(.unsupportedVersion, line: first.number, text: String(first.text)) }

        var origin: SDPOrigin?
        var sessionName: String?
        var session = SessionDescription(origin: SDPOrigin(sessionID: "0", sessionVersion: "0"))
        session.timings = []
        var current: MediaDescription?

        for (number, line) in lines.dropFirst() {
            let text = String(line)
            func fail(_ problem: SDPParseError.Problem) -> SDPParseError {
                SDPParseError(problem, line: number, text: text)
            }
            let chars = Array(line.prefix(2))
            guard chars.count == 2, chars[1] == "=", let type = chars.first, type.isASCII, type.isLowercase else {
                throw fail(.malformedLine)
            }
            let value = String(line.dropFirst(2))
            switch type {
            case "v":
                throw fail(.duplicate("v="))
            case "o":
                guard origin == nil, current == nil else { throw fail(.duplicate("o=")) }
                let fields = value.split(separator: " ").map(String.init)
                guard fields.count == 6 else { throw fail(.malformedOrigin) }
                origin = SDPOrigin(username: fields[0], sessionID: fields[1], sessionVersion: fields[2],
                                   networkType: fields[3], addressType: fields[4], address: fields[5])
            case "s":
                guard sessionName == nil, current == nil else { throw fail(.duplicate("s=")) }
                sessionName = value
            case "c":
                let fields = value.split(separator: " ").map(String.init)
                guard fields.count == 3 else { throw fail(.malformedConnection) }
                let connection = SDPConnection(networkType: fields[0], addressType: fields[1], address: fields[2])
                if current != nil {
                    guard current?.connection == nil else { throw fail(.duplicate("c=")) }
                    current?.connection = connection
                } else {
                    guard session.connection == nil else { throw fail(.duplicate("c=")) }
                    session.connection = connection
                }
            case "t":
                let fields = value.split(separator: " ")
                guard current == nil, fields.count == 2, let start = UInt64(fields[0]), let stop = UInt64(fields[1]) else {
                    throw fail(.malformedTiming)
                }
                session.timings.append(SDPTiming(start: start, stop: stop))
            case "m":
                if let finished = current { session.media.append(finished) }
                guard let media = MediaDescription(mLine: value) else { throw fail(.malformedMedia) }
                current = media
            case "a":
                let attribute = SDPParser.attribute(value)
                if let problem = SDPParser.check(attribute) { throw fail(problem) }
                if current != nil {
                    if attribute.name == "mid", current?.mid != nil { throw fail(.duplicate("a=mid")) }
                    current?.attributes.append(attribute)
                } else {
                    session.attributes.append(attribute)
                }
            default:
                // i= u= e= p= b= r= z= k= are kept; unknown letters are ignored (RFC 8866 §5).
                guard "iuepbrzk".contains(type) else { continue }
                if current != nil {
                    current?.otherLines.append(SDPLine(type: type, value: value))
                } else {
                    session.otherLines.append(SDPLine(type: type, value: value))
                }
            }
        }
        if let finished = current { session.media.append(finished) }
        guard let origin else { throw SDPParseError(.malformedOrigin, line: 0, text: "") }
        guard let sessionName else { throw SDPParseError(.missingSessionName, line: 0, text: "") }
        session.origin = origin
        session.sessionName = sessionName
        if session.timings.isEmpty { session.timings = [SDPTiming(start: 0, stop: 0)] }
        self = session
    }
}

extension MediaDescription {
    /// Parses the value of an `m=` line (RFC 8866 §5.14).
    init?(mLine value: String) {
        let fields = value.split(separator: " ").map(String.init)
        guard fields.count >= 4, !fields[0].isEmpty else { return nil }
        let portParts = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard let port = Int(portParts[0]), (0...65535).contains(port), portParts.count <= 2 else { return nil }
        self.init(type: fields[0], port: port, proto: fields[2], formats: Array(fields[3...]))
        if portParts.count == 2 {
            guard let count = Int(portParts[1]), count > 0 else { return nil }
            portCount = count
        }
    }
}

enum SDPParser {
    /// Splits `name[:value]` at the first colon (RFC 8866 §5.13).
    static func attribute(_ text: String) -> SDPAttribute {
        guard let colon = text.firstIndex(of: ":") else { return SDPAttribute(text) }
        return SDPAttribute(String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The grammar problem of a known attribute, or nil.
    static func check(_ attribute: SDPAttribute) -> SDPParseError.Problem? {
        let name = attribute.name
        guard !name.isEmpty else { return .malformedAttribute(name) }
        let value = attribute.value ?? ""
        let ok: Bool
        switch name {
        case "rtpmap": ok = SDPRTPMap(value) != nil
        case "fmtp": ok = SDPFormatParameters(value) != nil
        case "rtcp-fb": ok = SDPRTCPFeedback(value) != nil
        case "extmap": ok = SDPExtMap(value) != nil
        case "ssrc": ok = SDPSSRCAttribute(value) != nil
        case "ssrc-group": ok = SDPSSRCGroup(value) != nil
        case "fingerprint": ok = SDPFingerprint(value) != nil
        case "setup": ok = SDPSetupRole(rawValue: value) != nil
        case "candidate": ok = SDPCandidate(value) != nil
        case "group": ok = SDPGroup(value) != nil
        case "msid": ok = SDPMediaStreamID(value) != nil
        case "mid", "ice-ufrag", "ice-pwd": ok = !value.isEmpty && !value.contains(" ")
        default: ok = true
        }
        return ok ? nil : .malformedAttribute(name)
    }
}
