import NIOCore

extension RelayEngine {
    /// What ``LegFactory/restart(_:offer:)`` needs of a leg; refuses legs that carry no more media.
    func restartBasis(_ id: LegID) throws(MediaRelayError) -> LegFactory.RestartBasis {
        let leg = try liveLeg(id)
        return LegFactory.RestartBasis(
            parameters: leg.answerParameters, media: leg.media, remoteFingerprint: leg.remoteFingerprint,
            localSetup: leg.localSetup,
            remoteUfrags: [leg.ice.current.remoteUfrag] + (leg.ice.pending.map { [$0.remoteUfrag] } ?? []))
    }

    /// Takes a restart's new credentials and media into the leg (RFC 8445 §9). The DTLS
    /// association, SRTP sessions, send address and pairing stay; the new credentials become
    /// current at the client's first check with them. `basisVersion` is the answer version the
    /// restart was planned from: another restart in between makes this one stale.
    func applyRestart(_ id: LegID, _ restart: LegFactory.Restart, basisVersion: UInt64) throws(MediaRelayError) {
        let leg = try liveLeg(id)
        guard leg.answerParameters.sessionVersion == basisVersion else {
            throw .restartRefused(code: "restart_in_progress", "Another ICE restart of this leg was answered meanwhile")
        }
        leg.ice.restart(localUfrag: restart.parameters.iceUfrag, localPassword: restart.parameters.icePwd,
                        remoteUfrag: restart.remoteUfrag, now: .now())
        syncUfrags(leg)
        leg.answerParameters = restart.parameters
        if leg.media != restart.media {
            leg.media = restart.media
            rebuildPlans(leg)
        }
        leg.iceRestarts &+= 1
        counters.iceRestarts &+= 1
        logger.info("ICE restart answered", metadata: [
            "leg": "\(id)", "owner": "\(leg.owner)", "version": "\(restart.parameters.sessionVersion)"])
    }

    private func liveLeg(_ id: LegID) throws(MediaRelayError) -> RelayLeg {
        let leg = try leg(id)
        switch leg.state {
        case .waitingForICE, .handshaking, .connected:
            return leg
        case .failed, .closed, .dead:
            throw .restartRefused(code: "leg_not_live", "Leg \(id) is \(leg.state.rawValue); an ICE restart cannot revive it")
        }
    }
}
