import Crypto
import Foundation
import Synchronization

/// A file written in full to the store's staging folder, with its size and content hash, waiting to
/// be adopted under its hash (or discarded).
public struct StagedFile: Sendable {
    public let path: String
    public let size: Int
    public let hash: ContentHash

    public init(path: String, size: Int, hash: ContentHash) {
        self.path = path
        self.size = size
        self.hash = hash
    }
}

/// SHA-256 over bytes that arrive in pieces: an upload is hashed while it streams to disk.
public struct ContentHasher: Sendable {
    private var sha = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { sha.update(bufferPointer: bytes) }

    public func finalize() -> ContentHash { ContentHash(digest: sha.finalize()) }
}

extension FileStore {
    /// Uploads are written here while they arrive: inside the store's root, so adopting one is a
    /// rename on the same file system, and a crash leaves nothing but this folder to sweep.
    public var stagingDirectory: String { root + "/.staging" }

    /// A fresh path in the staging folder (nothing is created).
    public func newStagingPath() -> String { stagingDirectory + "/" + UUID().uuidString }

    /// Moves a staged file into place under its hash; when those bytes are already stored the
    /// staged copy is dropped.
    public func adopt(_ staged: StagedFile) throws {
        let path = self.path(for: staged.hash)
        if FileManager.default.fileExists(atPath: path) { return discard(staged) }
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if rename(staged.path, path) != 0 {
            discard(staged)
            if !FileManager.default.fileExists(atPath: path) { throw CocoaError(.fileWriteUnknown) }
        }
    }

    public func discard(_ staged: StagedFile) { discard(stagedAt: staged.path) }

    public func discard(stagedAt path: String) { unlink(path) }

    /// Sweeps the staging folder again once `interval` seconds have passed since the last sweep.
    /// What a failed upload staged is removed when it fails; what is left is a node's that stopped
    /// mid-upload, in a folder the other nodes sharing the root go on using without restarting.
    /// Uploads call this as they start, so a folder in use is swept without a timer of its own.
    public func sweepStagingIfDue(every interval: TimeInterval = 600, now: Date = Date()) {
        guard lastSweep.claim(every: interval, now: now) else { return }
        sweepStaging(now: now)
    }

    /// Staged files left by a process that stopped mid-upload: those untouched for `age` seconds.
    /// A fresh one may be another node's upload arriving now (nodes that share the root share
    /// this folder), so it stays.
    func sweepStaging(olderThan age: TimeInterval = 3600, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: stagingDirectory) else { return }
        let cutoff = now.addingTimeInterval(-age)
        for name in names {
            let path = stagingDirectory + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < cutoff { unlink(path) }
        }
    }
}

/// When a store's staging folder was last swept, so that one sweep runs per interval however many
/// uploads start.
final class StagingSweepClock: Sendable {
    private let last = Mutex(Date())

    /// True (and the time moves to `now`) when `interval` has passed since the last sweep.
    func claim(every interval: TimeInterval, now: Date) -> Bool {
        last.withLock { last in
            guard now.timeIntervalSince(last) >= interval else { return false }
            last = now
            return true
        }
    }
}
