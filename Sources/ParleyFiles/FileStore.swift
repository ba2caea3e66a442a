import Crypto
import Foundation

/// Content-addressed files under a root folder: a file's name is the SHA-256 of its bytes, so the
/// same avatar uploaded twice is stored once, and a name cannot be guessed from anything else.
/// Several nodes may share one root (a folder on a shared file system): every file appears by a
/// rename, whole, and nothing about the files is kept in memory.
public struct FileStore: Sendable {
    public let root: String
    /// When the staging folder was last swept; copies of the store share it.
    let lastSweep: StagingSweepClock

    public init(root: String) throws {
        self.root = root
        self.lastSweep = StagingSweepClock()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: stagingDirectory, withIntermediateDirectories: true)
        sweepStaging()
    }

    /// Stores `bytes` (if not already there) and returns their hash.
    @discardableResult
    public func put(_ bytes: [UInt8]) throws -> ContentHash {
        let hash = ContentHash(of: bytes)
        let path = self.path(for: hash)
        if FileManager.default.fileExists(atPath: path) { return hash }
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Write in the staging folder, then rename: a reader never sees half a file, and what a
        // crash leaves between the two is swept with the uploads left there.
        let temporary = newStagingPath()
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        if rename(temporary, path) != 0 {
            try? FileManager.default.removeItem(atPath: temporary)
            if !FileManager.default.fileExists(atPath: path) { throw CocoaError(.fileWriteUnknown) }
        }
        return hash
    }

    public func read(_ hash: ContentHash) -> [UInt8]? {
        FileManager.default.contents(atPath: path(for: hash)).map(Array.init)
    }

    /// The stored file's size in bytes, nil when it is not there.
    public func size(of hash: ContentHash) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path(for: hash)))?[.size] as? Int
    }

    public func exists(_ hash: ContentHash) -> Bool {
        FileManager.default.fileExists(atPath: path(for: hash))
    }

    public func delete(_ hash: ContentHash) {
        try? FileManager.default.removeItem(atPath: path(for: hash))
    }

    /// `root/ab/cd/abcd…`: two levels of fan-out keep folders small.
    public func path(for hash: ContentHash) -> String {
        let hex = hash.hex
        let first = hex.prefix(2), second = hex.dropFirst(2).prefix(2)
        return "\(root)/\(first)/\(second)/\(hex)"
    }
}

/// The lowercase hex SHA-256 of a file's bytes.
public struct ContentHash: Hashable, Sendable, Codable, CustomStringConvertible {
    public let hex: String

    public init(of bytes: [UInt8]) {
        self.init(digest: SHA256.hash(data: bytes))
    }

    init(digest: SHA256.Digest) {
        hex = digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Accepts only 64 lowercase hex digits, so a hash taken from a URL cannot walk the file tree.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.hex = hex
    }

    public var description: String { hex }
}
