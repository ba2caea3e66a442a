import Crypto
import Foundation
import ParleySTUN
#if canImport(Glibc)
import Glibc
#endif

/// Speaks just enough TURN over UDP to ask a server for an allocation (RFC 8656 §7.2) with a
/// long-term credential, and for permissions to peers (§9), and reports what it answered: the
/// tests' own check that coturn takes Parley's credentials, refuses expired or foreign ones, and
/// relays to no peer but Parley's media address.
struct TURNProbe {
    /// Allocate and CreatePermission (RFC 8656 §18); REQUESTED-TRANSPORT, XOR-PEER-ADDRESS (§18.1, §18.3).
    static let allocate = STUNMethod(rawValue: 0x003)
    static let createPermission = STUNMethod(rawValue: 0x008)
    static let requestedTransport: UInt16 = 0x0019
    static let xorPeerAddress: UInt16 = 0x0012

    enum Outcome: Equatable, CustomStringConvertible {
        /// A success response whose MESSAGE-INTEGRITY checks out with the credential.
        case granted
        case refused(code: Int, reason: String)

        /// The error code of a refusal.
        var code: Int? {
            if case .refused(let code, _) = self { return code }
            return nil
        }

        var description: String {
            switch self {
            case .granted: "granted"
            case .refused(let code, let reason): "\(code) \(reason)"
            }
        }
    }

    enum ProbeError: Error { case noAnswer, notSTUN, noRealmOrNonce }

    let port: Int

    /// A Binding request: whether the server answers at all (it is up).
    func answersBinding(timeout: Duration = .milliseconds(200)) -> Bool {
        let request = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        guard let socket = try? Socket(port: port),
              let reply = try? socket.exchange(request.bytes, timeout: timeout), case .success(let message) = STUNMessage.parse(reply) else {
            return false
        }
        return message.type == .bindingSuccessResponse
    }

    /// An allocation attempt with a fresh client address; see `Session.allocate()`.
    func allocate(username: String, password: String) throws -> Outcome {
        try Session(port: port, username: username, password: password).allocate()
    }

    /// One client address (coturn keeps the nonce and the allocation per 5-tuple) and credential.
    final class Session {
        let socket: Socket
        let username: String
        let password: String
        private var realm: [UInt8] = []
        private var nonce: [UInt8] = []
        private var key: STUNIntegrityKey?

        init(port: Int, username: String, password: String) throws {
            socket = try Socket(port: port)
            self.username = username
            self.password = password
        }

        /// The long-term credential dance (RFC 8489 §9.2): an unauthenticated Allocate learns the
        /// realm and nonce from the 401, the second one carries USERNAME, REALM, NONCE and
        /// MESSAGE-INTEGRITY keyed with MD5(username ":" realm ":" password).
        func allocate() throws -> Outcome {
            let transport: (UInt16, [UInt8]) = (TURNProbe.requestedTransport, [17, 0, 0, 0])   // UDP
            let first = try send(TURNProbe.allocate, [transport], authenticated: false)
            guard case .success(let challenge) = STUNMessage.parse(first) else { throw ProbeError.notSTUN }
            guard challenge.errorCode?.code == 401, let realm = TURNProbe.attribute(STUNAttributeType.realm, in: first),
                  let nonce = TURNProbe.attribute(STUNAttributeType.nonce, in: first) else { throw ProbeError.noRealmOrNonce }
            self.realm = realm
            self.nonce = nonce
            key = STUNIntegrityKey(bytes: Array(Insecure.MD5.hash(data: Data((username + ":" + String(decoding: realm, as: UTF8.self) + ":" + password).utf8))))
            return try outcome(of: send(TURNProbe.allocate, [transport], authenticated: true))
        }

        /// CreatePermission for an IPv4 peer, after `allocate()`.
        func permit(_ peer: String) throws -> Outcome {
            var address = in_addr()
            guard inet_pton(AF_INET, peer, &address) == 1 else { throw ProbeError.notSTUN }
            let ip = UInt32(bigEndian: address.s_addr) ^ STUNHeader.magicCookie
            let value: [UInt8] = [0, 0x01, 0x21, 0x12,   // family IPv4, port 0 XOR 0x2112
                                  UInt8(ip >> 24), UInt8(ip >> 16 & 0xFF), UInt8(ip >> 8 & 0xFF), UInt8(ip & 0xFF)]
            return try outcome(of: send(TURNProbe.createPermission, [(TURNProbe.xorPeerAddress, value)], authenticated: true))
        }

        private func outcome(of answer: [UInt8]) throws -> Outcome {
            guard case .success(let message) = STUNMessage.parse(answer) else { throw ProbeError.notSTUN }
            if message.type.messageClass == .successResponse, let key, message.verifyMessageIntegrity(answer, key: key) { return .granted }
            return .refused(code: message.errorCode?.code ?? 0, reason: message.errorCode?.reason ?? "\(message.type)")
        }

        private func send(_ method: STUNMethod, _ attributes: [(UInt16, [UInt8])], authenticated: Bool) throws -> [UInt8] {
            var request = STUNMessageBuilder(type: STUNMessageType(method: method, messageClass: .request), transactionID: .random())
            for (type, value) in attributes { request.append(type: type, value: value) }
            if authenticated, let key {
                request.append(type: STUNAttributeType.username, value: Array(username.utf8))
                request.append(type: STUNAttributeType.realm, value: realm)
                request.append(type: STUNAttributeType.nonce, value: nonce)
                request.appendMessageIntegrity(key: key)
            }
            request.appendFingerprint()
            return try socket.exchange(request.bytes, timeout: .seconds(2))
        }
    }

    static func attribute(_ type: UInt16, in bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { raw in
            var iterator = STUNAttributeIterator(raw)
            while let attribute = iterator.next() {
                if attribute.type == type { return Array(bytes[attribute.valueRange]) }
            }
            return nil
        }
    }

    /// A UDP socket towards 127.0.0.1:port.
    final class Socket {
        let fd: Int32
        let port: Int

        init(port: Int) throws {
            fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { throw ProbeError.noAnswer }
            self.port = port
        }

        deinit { close(fd) }

        /// One datagram to 127.0.0.1:port and the first one back.
        func exchange(_ request: [UInt8], timeout: Duration) throws -> [UInt8] {
            let micros = timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000
            var wait = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let sent = request.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            guard sent == request.count else { throw ProbeError.noAnswer }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { throw ProbeError.noAnswer }
            return Array(buffer[0..<received])
        }
    }
}
