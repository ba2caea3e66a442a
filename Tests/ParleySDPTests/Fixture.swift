import Foundation

/// Loads the real offers in `Fixtures/` next to this file (not SwiftPM resources: the
/// package manifest belongs to the lead, so the path comes from `#filePath`).
enum Fixture {
    static func text(_ name: String, filePath: String = #filePath) throws -> String {
        let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// Chromium 156's offer: audio + video, BUNDLE, extmap-allow-mixed, trickle.
    static func chromium() throws -> String { try text("chromium-156-offer.sdp") }
    /// aiortc 1.16's offer: audio + video, BUNDLE, candidates inline, three fingerprints.
    static func aiortc() throws -> String { try text("aiortc-1.16-offer.sdp") }
    /// Firefox 99 with max-bundle: its video section is `m=video 0` + `a=bundle-only`.
    static func firefoxMaxBundle() throws -> String { try text("firefox-99-max-bundle-offer.sdp") }
}
