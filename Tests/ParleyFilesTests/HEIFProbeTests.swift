import ParleyFiles
import ParleyTestSupport
import Testing

@Suite("HEIC (ISO/IEC 23008-12)")
struct HEIFProbeTests {
    typealias W = ISOWriter

    /// meta{hdlr pict, pitm, iprp{ipco{ispe thumb, ispe main, irot}, ipma}}: item 1 is a thumbnail,
    /// item 2 the primary image.
    static func heic(primaryRotation: UInt8? = nil, wideIndices: Bool = false, withPitm: Bool = true) -> [UInt8] {
        let thumbnail = W.fullBox("ispe", version: 0, W.u32(320) + W.u32(240))
        let main = W.fullBox("ispe", version: 0, W.u32(4032) + W.u32(3024))
        let irot = W.box("irot", [primaryRotation ?? 0])
        let ipco = W.box("ipco", thumbnail + main + irot)
        func association(_ index: UInt8) -> [UInt8] { wideIndices ? [0x80, index] : [0x80 | index] }
        let primaryAssociations = [association(2)] + (primaryRotation == nil ? [] : [association(3)])
        let ipma = W.fullBox("ipma", version: 0, flags: wideIndices ? 1 : 0, W.u32(2)
            + W.u16(1) + [1] + association(1)
            + W.u16(2) + [UInt8(primaryAssociations.count)] + primaryAssociations.flatMap { $0 })
        let pitm = withPitm ? W.fullBox("pitm", version: 0, W.u16(2)) : []
        let meta = W.fullBox("meta", version: 0, W.hdlr("pict") + pitm + W.box("iprp", ipco + ipma))
        return W.ftyp("heic", ["mif1", "heic"]) + meta + W.mdat(200)
    }

    @Test func thePrimaryItemsExtent() {
        #expect(MediaProbe.probe(Self.heic()) == MediaInfo(type: .heic, width: 4032, height: 3024))
        #expect(MediaProbe.probe(Self.heic(wideIndices: true)) == MediaInfo(type: .heic, width: 4032, height: 3024))
    }

    @Test func aQuarterTurnSwapsTheSides() {
        #expect(MediaProbe.probe(Self.heic(primaryRotation: 1)) == MediaInfo(type: .heic, width: 3024, height: 4032))
        #expect(MediaProbe.probe(Self.heic(primaryRotation: 2)) == MediaInfo(type: .heic, width: 4032, height: 3024))
    }

    @Test func withoutAPrimaryItemTheLargestExtent() {
        #expect(MediaProbe.probe(Self.heic(withPitm: false)) == MediaInfo(type: .heic, width: 4032, height: 3024))
    }

    @Test func justTheFtypIsStillHEIC() {
        let ftyp: [UInt8] = [0x00, 0x00, 0x00, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        #expect(MediaProbe.probe(ftyp) == MediaInfo(type: .heic))
    }

    @Test func avifIsNotHEIC() {
        #expect(MediaType.sniff(W.ftyp("avif", ["avif", "mif1", "miaf"])) == nil)
        #expect(MediaType.sniff(W.ftyp("mif1", ["mif1", "avif", "miaf"])) == nil)
        #expect(MediaType.sniff(W.ftyp("mif1", ["mif1", "heic"])) == .heic)
    }
}
