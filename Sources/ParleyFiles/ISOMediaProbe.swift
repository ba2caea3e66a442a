/// Duration, size and the precise type of MP4, MOV and M4A files (ISO/IEC 14496-12, "ISO base media
/// file format", and Apple's QuickTime File Format, which share the box layout).
///
/// The movie box `moov` may come before or after the media data `mdat` (writers that do not
/// "fast start" put it last); `free`, `skip` and `wide` boxes are simply stepped over.
///
/// - Duration: `moov/mvhd` (§8.2.2) `duration / timescale`, version 0 (32-bit) or 1 (64-bit);
///   when that is 0 or "unknown" (all ones), the fragment duration of `moov/mvex/mehd` (§8.8.2),
///   else the longest track: its `trak/mdia/mdhd` (§8.4.2) duration plus, in a fragmented file,
///   the sample durations of its movie fragments (`ISOFragments`).
/// - Size: the first video track's `trak/tkhd` (§8.3.2) width and height (16.16 fixed point),
///   swapped when the track matrix turns the picture by 90° or 270° (portrait phone video).
/// - Type: a movie with a video track (`hdlr` handler `vide`, §8.4.3) is `.mp4`, or `.mov` for
///   QuickTime (`qt  ` brand); one with sound (`soun`) but no video is `.m4a`, whatever the brand.
///   Without a readable `moov` the `ftyp` brands decide (`MediaType.sniff`).
enum ISOMediaProbe {
    static func probe(_ bytes: MediaBytes, sniffed: MediaType) -> MediaInfo {
        let top = ISOBox.children(of: bytes, in: 0..<bytes.count)
        if sniffed == .heic {
            let size = HEIFProbe.size(bytes, top: top)
            return MediaInfo(type: .heic, width: size?.width, height: size?.height)
        }
        guard let moov = top.first("moov") else { return MediaInfo(type: sniffed) }
        let movie = moov.children(of: bytes)
        let tracks = movie.filter { $0.type == "trak" }.map { Track(bytes, $0) }

        var durationMs: Int?
        if let mvhd = movie.first("mvhd"), let header = MediaHeader(bytes, mvhd), header.duration > 0 {
            durationMs = MediaInfo.milliseconds(header.duration, per: header.timescale)
        }
        if durationMs == nil, let mehd = movie.first("mvex")?.children(of: bytes).first("mehd"),
           let timescale = movie.first("mvhd").flatMap({ MediaHeader(bytes, $0) })?.timescale,
           let fragments = fragmentDuration(bytes, mehd), fragments > 0 {
            durationMs = MediaInfo.milliseconds(fragments, per: timescale)
        }
        if durationMs == nil {
            let fragments = ISOFragments.durations(bytes, top: top, movie: movie)
            durationMs = tracks.compactMap { track -> Int? in
                guard let media = track.media else { return nil }
                let fragmented = track.id.flatMap { fragments[$0] } ?? 0
                let (units, overflow) = media.duration.addingReportingOverflow(fragmented)
                return units > 0 && !overflow ? MediaInfo.milliseconds(units, per: media.timescale) : nil
            }.max()
        }

        let video = tracks.first { $0.isVideo }
        let type: MediaType
        if video != nil {
            type = sniffed == .mov ? .mov : .mp4
        } else if tracks.contains(where: { $0.handler == "soun" }) {
            type = .m4a
        } else {
            type = sniffed
        }
        return MediaInfo(type: type, durationMs: durationMs, width: video?.width, height: video?.height)
    }

    /// `mehd` fragment_duration (§8.8.2): 64-bit in version 1, else 32-bit.
    private static func fragmentDuration(_ bytes: MediaBytes, _ box: ISOBox) -> UInt64? {
        let start = box.payload.lowerBound
        guard let version = bytes.u8(start) else { return nil }
        let value = version == 1 ? bytes.u64be(start + 4) : bytes.u32be(start + 4).map(UInt64.init)
        guard let value, box.payload.upperBound >= start + (version == 1 ? 12 : 8) else { return nil }
        return value
    }

    /// The shared start of `mvhd` and `mdhd` (§8.2.2, §8.4.2): version, flags, two timestamps, then
    /// timescale and duration — 32-bit fields in version 0, 64-bit times and duration in version 1.
    /// A duration of all ones means "unknown" and reads as 0.
    struct MediaHeader {
        let timescale: UInt64
        let duration: UInt64

        init?(_ bytes: MediaBytes, _ box: ISOBox) {
            let start = box.payload.lowerBound
            guard let version = bytes.u8(start) else { return nil }
            let timescale: UInt32?, duration: UInt64?, unknown: UInt64
            switch version {
            case 0:
                guard box.payload.upperBound >= start + 20 else { return nil }
                timescale = bytes.u32be(start + 12)
                duration = bytes.u32be(start + 16).map(UInt64.init)
                unknown = UInt64(UInt32.max)
            case 1:
                guard box.payload.upperBound >= start + 32 else { return nil }
                timescale = bytes.u32be(start + 20)
                duration = bytes.u64be(start + 24)
                unknown = UInt64.max
            default:
                return nil
            }
            guard let timescale, timescale > 0, let duration else { return nil }
            self.timescale = UInt64(timescale)
            self.duration = duration == unknown ? 0 : duration
        }
    }

    /// What one `trak` says: its handler type, media header and (from `tkhd`) id and presentation size.
    struct Track {
        var id: UInt32?
        var handler: String?
        var media: MediaHeader?
        var width: Int?
        var height: Int?

        /// A video track by its handler, or — when there is no `hdlr` — by having a picture size.
        var isVideo: Bool { handler == "vide" || (handler == nil && width != nil && height != nil) }

        init(_ bytes: MediaBytes, _ trak: ISOBox) {
            let boxes = trak.children(of: bytes)
            if let mdia = boxes.first("mdia") {
                let parts = mdia.children(of: bytes)
                media = parts.first("mdhd").flatMap { MediaHeader(bytes, $0) }
                // hdlr (§8.4.3): version/flags, pre_defined, then handler_type.
                if let hdlr = parts.first("hdlr"), hdlr.payload.count >= 12 {
                    handler = bytes.fourCC(hdlr.payload.lowerBound + 8)
                }
            }
            if let tkhd = boxes.first("tkhd") { readHeader(bytes, tkhd) }
        }

        /// `tkhd` (§8.3.2): after version/flags come times, track_ID and duration (20 bytes in
        /// version 0, 32 in version 1), 8 reserved, layer/alternate group/volume/reserved (8), the
        /// 3×3 matrix {a b u, c d v, x y w} (36), then width and height as 16.16 fixed point.
        private mutating func readHeader(_ bytes: MediaBytes, _ tkhd: ISOBox) {
            let start = tkhd.payload.lowerBound
            guard let version = bytes.u8(start), version <= 1 else { return }
            id = bytes.u32be(start + (version == 1 ? 20 : 12))
            let matrix = start + (version == 1 ? 52 : 40)
            let sizeAt = matrix + 36
            guard tkhd.payload.upperBound >= sizeAt + 8,
                  let fixedWidth = bytes.u32be(sizeAt), let fixedHeight = bytes.u32be(sizeAt + 4),
                  let a = bytes.u32be(matrix), let b = bytes.u32be(matrix + 4),
                  let c = bytes.u32be(matrix + 12), let d = bytes.u32be(matrix + 16)
            else { return }
            let w = Int(fixedWidth >> 16), h = Int(fixedHeight >> 16)
            guard w > 0, h > 0 else { return }
            let quarterTurn = a == 0 && d == 0 && b != 0 && c != 0
            (width, height) = quarterTurn ? (h, w) : (w, h)
        }
    }
}
