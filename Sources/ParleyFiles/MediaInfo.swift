/// What `MediaProbe` learnt from a file's bytes: its type (decided from the bytes, never from a
/// client's Content-Type) and, when the container states them, its duration and pixel size.
public struct MediaInfo: Sendable, Equatable {
    public var type: MediaType
    /// Playing time in milliseconds, rounded to the nearest millisecond; nil for images and when the
    /// container does not say.
    public var durationMs: Int?
    /// Size in pixels, when the container says: PNG/JPEG/GIF as stored (EXIF orientation is not
    /// applied), HEIC and MP4/MOV as displayed (`irot` and the track matrix's quarter turns applied).
    public var width: Int?
    public var height: Int?

    public init(type: MediaType, durationMs: Int? = nil, width: Int? = nil, height: Int? = nil) {
        self.type = type
        self.durationMs = durationMs
        self.width = width
        self.height = height
    }

    /// `units / unitsPerSecond` seconds in milliseconds, rounded half up, computed exactly in 128
    /// bits; nil when `unitsPerSecond` is 0 or the result does not fit an `Int`.
    static func milliseconds(_ units: UInt64, per unitsPerSecond: UInt64) -> Int? {
        guard unitsPerSecond > 0 else { return nil }
        let seconds = units / unitsPerSecond, rest = units % unitsPerSecond
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        let product = rest.multipliedFullWidth(by: 1000)
        let (fraction, remainder) = unitsPerSecond.dividingFullWidth(product)  // < 1000: fits.
        let rounded = fraction + (remainder >= unitsPerSecond - remainder ? 1 : 0)
        let (total, overflow2) = whole.addingReportingOverflow(rounded)
        guard !overflow2, total <= UInt64(Int.max) else { return nil }
        return Int(total)
    }
}
