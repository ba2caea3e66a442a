/// A session description (RFC 8866 §5): session-level lines, then media sections.
///
/// Attributes are kept as written, in order, so unknown ones survive a round trip; typed
/// views of the ones WebRTC uses come from ``SDPAttributeContainer``.
public struct SessionDescription: Sendable, Hashable, SDPAttributeContainer {
    /// `v=`, always 0 (RFC 8866 §5.1).
    public var version: Int = 0
    /// `o=` (RFC 8866 §5.2).
    public var origin: SDPOrigin
    /// `s=` (RFC 8866 §5.3); "-" when there is nothing to say.
    public var sessionName: String = "-"
    /// Session-level `c=` (RFC 8866 §5.7).
    public var connection: SDPConnection?
    /// `t=` lines (RFC 8866 §5.9).
    public var timings: [SDPTiming] = [SDPTiming(start: 0, stop: 0)]
    /// Other session-level lines kept as they were: `i= u= e= p= b= r= z= k=`.
    public var otherLines: [SDPLine] = []
    /// Session-level `a=` lines, in order.
    public var attributes: [SDPAttribute] = []
    /// `m=` sections, in order.
    public var media: [MediaDescription] = []

    public init(origin: SDPOrigin, sessionName: String = "-") {
        self.origin = origin
        self.sessionName = sessionName
    }
}

/// One media section (RFC 8866 §5.14): the `m=` line and the lines after it.
public struct MediaDescription: Sendable, Hashable, SDPAttributeContainer {
    /// The media type: "audio", "video", "application", …
    public var type: String
    /// The transport port; 0 rejects the section (RFC 8866 §5.14, RFC 3264 §6).
    public var port: Int
    /// The "/<number of ports>" suffix, if any.
    public var portCount: Int?
    /// The transport protocol, e.g. "UDP/TLS/RTP/SAVPF" (RFC 5764 §8).
    public var proto: String
    /// Media formats: RTP payload types for RTP profiles, else e.g. "webrtc-datachannel".
    public var formats: [String]
    /// Media-level `c=`.
    public var connection: SDPConnection?
    /// Other media-level lines kept as they were: `i= b= k=`.
    public var otherLines: [SDPLine] = []
    /// Media-level `a=` lines, in order.
    public var attributes: [SDPAttribute] = []

    public init(type: String, port: Int, proto: String, formats: [String]) {
        self.type = type
        self.port = port
        self.proto = proto
        self.formats = formats
    }

    /// The media type as an enum.
    public var kind: SDPMediaKind { SDPMediaKind(type) }

    /// Payload types listed on the m= line, in preference order, skipping non-numeric formats.
    public var payloadTypes: [UInt8] { formats.compactMap { UInt8($0) }.filter { $0 < 128 } }
}

/// Media types Parley distinguishes.
public enum SDPMediaKind: Sendable, Hashable {
    case audio
    case video
    case application
    case other(String)

    public init(_ type: String) {
        switch type.lowercased() {
        case "audio": self = .audio
        case "video": self = .video
        case "application": self = .application
        default: self = .other(type)
        }
    }

    public var name: String {
        switch self {
        case .audio: return "audio"
        case .video: return "video"
        case .application: return "application"
        case .other(let type): return type
        }
    }
}

/// `o=<username> <sess-id> <sess-version> <nettype> <addrtype> <unicast-address>` (RFC 8866 §5.2).
public struct SDPOrigin: Sendable, Hashable {
    public var username: String
    /// Numeric string; WebRTC uses up to 64 bits.
    public var sessionID: String
    public var sessionVersion: String
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(username: String = "-", sessionID: String, sessionVersion: String, networkType: String = "IN",
                addressType: String = "IP4", address: String = "0.0.0.0") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// `c=<nettype> <addrtype> <connection-address>` (RFC 8866 §5.7).
public struct SDPConnection: Sendable, Hashable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String) {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }

    /// "IN IP4 a.b.c.d" or "IN IP6 …" chosen by the address's form.
    public init(address: String) {
        self.init(addressType: address.contains(":") ? "IP6" : "IP4", address: address)
    }
}

/// `t=<start-time> <stop-time>` (RFC 8866 §5.9); WebRTC always sends `t=0 0`.
public struct SDPTiming: Sendable, Hashable {
    public var start: UInt64
    public var stop: UInt64

    public init(start: UInt64, stop: UInt64) {
        self.start = start
        self.stop = stop
    }
}

/// A line this codec keeps but does not interpret: its type letter and value.
public struct SDPLine: Sendable, Hashable {
    public var type: Character
    /// The attribute value as written after "a=<name>:".
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }
}

/// An `a=` line (RFC 8866 §5.13): a property (`a=rtcp-mux`) or `name:value`.
public struct SDPAttribute: Sendable, Hashable {
    public var name: String
    /// The attribute value as written after "a=<name>:".
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The line without its "a=" prefix.
    public var text: String {
        value.map { "\(name):\($0)" } ?? name
    }
}
