#if canImport(Glibc)
import Glibc

/// glibc's allocator, set for a server that allocates and frees at a steady rate.
///
/// By default glibc hands freed memory back to the kernel as soon as an arena's free top passes
/// 128 KiB (`madvise`/`munmap`), and gives each block above a moving threshold a mapping of its
/// own; every such return flushes the other cores' TLBs (an interrupt to each) and the memory is
/// faulted back in moments later. A chat at 2 000 messages a second spent ~6 % of the server's CPU
/// doing that (the load test, `server CPU` 108 % → 101.5 %, two runs each). Kept: freed memory up to
/// 256 MiB per arena stays with the process, and only blocks from 8 MiB get mappings of their own.
/// An operator's own `GLIBC_TUNABLES` (`glibc.malloc.trim_threshold`, `…mmap_threshold`) wins.
enum AllocatorTuning {
    static let trimThreshold: Int32 = 256 << 20
    static let mmapThreshold: Int32 = 8 << 20
    /// `<malloc.h>`'s parameter numbers (glibc's ABI); Swift's Glibc module leaves that header out.
    static let mTrimThreshold: Int32 = -1, mMmapThreshold: Int32 = -3

    static func apply() {
        if let tunables = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }), tunables.contains("glibc.malloc.") { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }   // RTLD_DEFAULT
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(mTrimThreshold, trimThreshold)
        _ = mallopt(mMmapThreshold, mmapThreshold)
    }
}
#else
enum AllocatorTuning {
    static func apply() {}
}
#endif
