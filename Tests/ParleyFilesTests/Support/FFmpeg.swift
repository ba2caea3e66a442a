import Foundation

/// Where ffmpeg is on the PATH, if anywhere.
enum FFmpeg {
    static let path: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin"
        return path.split(separator: ":").map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
}
