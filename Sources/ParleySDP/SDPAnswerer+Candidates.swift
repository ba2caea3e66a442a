extension SDPAnswerer {
    /// The relay's candidates (RFC 8839 §5.1), all host candidates of component 1: per announced
    /// address, the first preferred, a UDP candidate and then a TCP passive one (RFC 6544 §4.5)
    /// when the relay listens on TCP.
    ///
    /// Priorities (RFC 8445 §5.1.2.1): UDP has type preference 126 and local preference 65535
    /// falling by one per address. TCP has a lower type preference, 90 (libwebrtc's for host TCP;
    /// RFC 6544 §4.2 leaves UDP above TCP), and the local preference of RFC 6544 §4.2 —
    /// 2^13 × direction-pref (4 for passive host candidates) + other-pref (8191 falling per
    /// address) — so every client takes UDP where UDP works.
    static func candidates(_ relay: SDPRelayParameters) -> [SDPCandidate] {
        let addresses = [relay.address] + relay.otherAddresses
        var candidates: [SDPCandidate] = []
        for (index, address) in addresses.enumerated() {
            if relay.udpCandidates {
                let localPreference = UInt32(65535 - index)
                candidates.append(SDPCandidate(
                    foundation: String(index + 1), component: 1, transport: "udp",
                    priority: priority(typePreference: 126, localPreference: localPreference),
                    address: address, port: relay.port, type: "host"))
            }
            if let tcpPort = relay.tcpPort {
                let localPreference = UInt32(1 << 13) * 4 + UInt32(8191 - index)
                candidates.append(SDPCandidate(
                    foundation: String(addresses.count + index + 1), component: 1, transport: "tcp",
                    priority: priority(typePreference: 90, localPreference: localPreference),
                    address: address, port: tcpPort, type: "host",
                    extensions: [SDPCandidate.Extension(name: "tcptype", value: "passive")]))
            }
        }
        return candidates
    }

    /// RFC 8445 §5.1.2.1: type preference, local preference and 256 − component id (component 1).
    private static func priority(typePreference: UInt32, localPreference: UInt32) -> UInt32 {
        typePreference << 24 | localPreference << 8 | 255
    }
}
