#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ProcessStats {
    /// The figures of the running process from `/proc/self/stat` and `/proc/self/statm`;
    /// nil where there is no `/proc` (macOS) or it cannot be read.
    public static func current() -> ProcessStats? {
        #if os(Linux)
        guard let stat = readProcFile("/proc/self/stat"), let statm = readProcFile("/proc/self/statm") else { return nil }
        return parse(stat: stat, statm: statm, ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)), pageSize: sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

    /// Reads a whole `/proc` file. They report a size of 0, so this reads until end of file
    /// instead of trusting `stat`.
    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > 1 << 16 { return nil }   // these files are a few hundred bytes
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
