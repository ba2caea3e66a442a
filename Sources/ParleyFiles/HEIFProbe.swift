/// Pixel size of a HEIF/HEIC still image (ISO/IEC 23008-12, "High Efficiency Image File Format").
///
/// HEIF keeps its images as items under the top-level `meta` box (a full box, ISO/IEC 14496-12
/// §8.11.1). The primary item (`pitm`, §8.11.4) is associated through `iprp/ipma` with properties
/// stored in `iprp/ipco` (ISO/IEC 23008-12 §9.3); its `ispe` property ("image spatial extents",
/// §6.5.3) gives width and height, and an `irot` property (§6.5.10) turning it by 90° or 270°
/// swaps them. When the associations cannot be read, the largest `ispe` is taken instead (the
/// primary image — or the grid it is tiled into — is the largest; thumbnails are smaller).
enum HEIFProbe {
    static func size(_ bytes: MediaBytes, top: [ISOBox]) -> (width: Int, height: Int)? {
        guard let meta = top.first("meta") else { return nil }
        let metaBoxes = meta.children(of: bytes, skipping: 4)
        guard let iprp = metaBoxes.first("iprp") else { return nil }
        let iprpBoxes = iprp.children(of: bytes)
        guard let ipco = iprpBoxes.first("ipco") else { return nil }
        let properties = ipco.children(of: bytes)

        if let primary = metaBoxes.first("pitm").flatMap({ primaryItem(bytes, $0) }) {
            let indices = iprpBoxes.filter { $0.type == "ipma" }.flatMap { associations(bytes, $0, item: primary) }
            // Property indices are 1-based; 0 means "no property".
            let associated = indices.compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil }
            if let ispe = associated.first("ispe"), let extent = extent(bytes, ispe) {
                let turned = associated.first("irot").flatMap { bytes.u8($0.payload.lowerBound) }.map { $0 & 1 == 1 } ?? false
                return turned ? (extent.height, extent.width) : extent
            }
        }
        return properties.filter { $0.type == "ispe" }.compactMap { extent(bytes, $0) }
            .max { UInt64($0.width) * UInt64($0.height) < UInt64($1.width) * UInt64($1.height) }
    }

    /// `pitm`: a full box holding a 16-bit item id (version 0) or a 32-bit one (version 1).
    private static func primaryItem(_ bytes: MediaBytes, _ box: ISOBox) -> UInt32? {
        let start = box.payload.lowerBound
        switch bytes.u8(start) {
        case 0: return box.payload.count >= 6 ? bytes.u16be(start + 4).map(UInt32.init) : nil
        case 1: return box.payload.count >= 8 ? bytes.u32be(start + 4) : nil
        default: return nil
        }
    }

    /// `ipma`: entry_count entries of {item id (16-bit in version 0, else 32-bit), association count,
    /// then per association an essential bit and a property index of 7 bits — or 15 when flag 1 is
    /// set}. Returns the property indices of `item`.
    private static func associations(_ bytes: MediaBytes, _ box: ISOBox, item: UInt32) -> [Int] {
        let start = box.payload.lowerBound, end = box.payload.upperBound
        guard let version = bytes.u8(start), let flags = bytes.u8(start + 3),
              let count = bytes.u32be(start + 4), end <= bytes.count else { return [] }
        let wideIndex = flags & 1 == 1
        var offset = start + 8
        for _ in 0..<min(Int(count), bytes.count) {
            let id: UInt32?
            if version < 1 {
                id = bytes.u16be(offset).map(UInt32.init)
                offset += 2
            } else {
                id = bytes.u32be(offset)
                offset += 4
            }
            guard let id, let associationCount = bytes.u8(offset), offset < end else { return [] }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<Int(associationCount) {
                if wideIndex {
                    guard offset + 2 <= end, let value = bytes.u16be(offset) else { return [] }
                    indices.append(Int(value & 0x7FFF))
                    offset += 2
                } else {
                    guard offset + 1 <= end, let value = bytes.u8(offset) else { return [] }
                    indices.append(Int(value & 0x7F))
                    offset += 1
                }
            }
            if id == item { return indices }
        }
        return []
    }

    /// `ispe`: a full box with 32-bit image width and height.
    private static func extent(_ bytes: MediaBytes, _ box: ISOBox) -> (width: Int, height: Int)? {
        let start = box.payload.lowerBound
        guard box.payload.count >= 12, let w = bytes.u32be(start + 4), let h = bytes.u32be(start + 8),
              w > 0, h > 0 else { return nil }
        return (Int(w), Int(h))
    }
}
