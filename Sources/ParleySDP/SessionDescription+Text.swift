extension SessionDescription {
    /// The description as SDP text, CRLF line ends, lines in RFC 8866 §5 order.
    public var text: String {
        var lines: [String] = ["v=\(version)"]
        let o = origin
        lines.append("o=\(o.username) \(o.sessionID) \(o.sessionVersion) \(o.networkType) \(o.addressType) \(o.address)")
        lines.append("s=\(sessionName)")
        lines += otherLines.filter { "iuep".contains($0.type) }.map(\.text)
        if let connection { lines.append("c=\(connection.text)") }
        lines += otherLines.filter { $0.type == "b" }.map(\.text)
        for timing in timings { lines.append("t=\(timing.start) \(timing.stop)") }
        lines += otherLines.filter { "rzk".contains($0.type) }.map(\.text)
        lines += attributes.map { "a=\($0.text)" }
        for section in media { lines += section.lines }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension MediaDescription {
    /// The section's lines: m=, i=, c=, b=, k=, then attributes (RFC 8866 §5).
    var lines: [String] {
        var lines = ["m=\(type) \(port)\(portCount.map { "/\($0)" } ?? "") \(proto) \(formats.joined(separator: " "))"]
        lines += otherLines.filter { $0.type == "i" }.map(\.text)
        if let connection { lines.append("c=\(connection.text)") }
        lines += otherLines.filter { $0.type != "i" }.map(\.text)
        lines += attributes.map { "a=\($0.text)" }
        return lines
    }
}

extension SDPConnection {
    var text: String { "\(networkType) \(addressType) \(address)" }
}

extension SDPLine {
    var text: String { "\(type)=\(value)" }
}
