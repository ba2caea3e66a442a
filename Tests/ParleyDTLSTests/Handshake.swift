@testable import ParleyDTLS

/// Shuttles datagrams between a ``DTLSServer`` and a ``TestDTLSClient`` in memory until neither
/// has anything to say, and records what happened.
struct Handshake {
    var serverStates: [DTLSState] = []
    var serverDatagrams: [[UInt8]] = []

    /// Delivers `toServer` (each element one datagram), then everything that follows.
    /// `dropServerFlight(n)` may drop the server's n-th flight (0-based) on the way to the client.
    mutating func run(_ server: inout DTLSServer, _ client: TestDTLSClient, first toServer: [[UInt8]],
                      dropServerFlight: (Int) -> Bool = { _ in false }) {
        var toServer = toServer
        var flight = 0
        for _ in 0..<20 {
            var toClient: [[UInt8]] = []
            for datagram in toServer {
                let outcome = datagram.withUnsafeBytes { server.receive($0) }
                toClient += outcome.datagrams
                if let state = outcome.newState { serverStates.append(state) }
            }
            serverDatagrams += toClient
            if !toClient.isEmpty {
                if dropServerFlight(flight) { toClient = [] }
                flight += 1
            }
            toServer = toClient.flatMap { client.receive($0) }
            if toServer.isEmpty { return }
        }
    }
}
