import Foundation
import ParleyCore
import ParleyProtocol
import ParleyFiles

extension ChatService {
    /// Stores an upload already written to the staging folder (`receivingUpload`): its kind is what
    /// its bytes show, within that kind's size limit and the uploader's quota. The staged file is
    /// adopted or removed, whatever the outcome.
    public func upload(_ user: UserID, staged: StagedFile) async throws -> AttachmentView {
        do {
            guard let info = MediaProbe.probe(fileAt: staged.path) else { throw ChatErrors.unsupportedKind }
            let kind = info.type.kind
            let limit = switch kind {
            case .image: settings.maxImageBytes
            case .video: settings.maxVideoBytes
            case .audio: settings.maxAudioBytes
            }
            guard staged.size <= limit else { throw ChatErrors.tooLarge(kind.rawValue, limit) }
            let record = AttachmentRecord(
                id: .generate(), uploaderID: user, hash: staged.hash.hex, kind: kind.rawValue, contentType: info.type.contentType,
                size: staged.size, durationMs: info.durationMs, width: info.width, height: info.height, createdAt: clock.now())
            // The record first: an id nobody has been given yet cannot be asked for before its file is in place.
            guard try await store.insertAttachment(record, withinQuota: settings.attachmentQuotaBytes) else {
                throw ChatErrors.quotaExceeded(settings.attachmentQuotaBytes)
            }
            do { try files.adopt(staged) } catch {
                try? await store.deleteAttachment(record.id)
                throw error
            }
            return view(record)
        } catch {
            files.discard(staged)
            throw error
        }
    }

    /// Runs `receive` (which writes the upload to `slot.path` as it arrives, then hands it to
    /// `upload`) in one of `user`'s upload places, holding room in their quota while it runs: the
    /// largest kind's limit, or the body's `declaredLength` when that is less, or what is left of
    /// the quota (uploads under way counted) when that is less still, and then passing it is
    /// `quota_exceeded`. The place and the room are given back when `receive` ends, after the
    /// upload is stored; what it staged is removed if it failed. `rate_limited` when the user
    /// already has `concurrentUploadsPerUser` uploads under way.
    public func receivingUpload<T>(
        _ user: UserID, declaredLength: Int?, _ receive: (UploadSlot) async throws -> T
    ) async throws -> T {
        files.sweepStagingIfDue()
        let places = max(settings.concurrentUploadsPerUser, 1)
        guard let mark = uploads.open(user, places: places) else {
            logger.notice("upload refused: too many at once", metadata: ["user": "\(user)"])
            throw ChatErrors.tooManyUploads(places)
        }
        var reserved = 0
        defer { uploads.close(user, bytes: reserved) }
        let slot = try await holdRoom(user, mark: mark, declaredLength: declaredLength)
        reserved = slot.limit
        do {
            return try await receive(slot)
        } catch {
            files.discard(stagedAt: slot.path)   // cut off, refused or failed: nothing stays staged
            throw error
        }
    }

    /// Room in `user`'s quota for an upload whose place is taken (`mark` as `open` answered): the
    /// stored total is read again while other uploads of theirs end in between.
    private func holdRoom(_ user: UserID, mark: Int, declaredLength: Int?) async throws -> UploadSlot {
        var mark = mark
        let wanted = min(settings.largestUpload, max(declaredLength ?? .max, 0))
        while true {
            let stored = try await store.attachmentBytes(uploadedBy: user)
            switch uploads.reserve(user, mark: mark, stored: stored, quota: settings.attachmentQuotaBytes, wanted: wanted) {
            case .stale(let now):
                mark = now
            case .held(let bytes, let quotaLeft):
                let overLimit = quotaLeft < settings.largestUpload
                    ? ChatErrors.quotaExceeded(settings.attachmentQuotaBytes)
                    : ParleyError(.tooLarge, code: "payload_too_large", "Attachments are at most \(settings.largestUpload) bytes")
                return UploadSlot(path: files.newStagingPath(), limit: bytes, overLimit: overLimit)
            }
        }
    }

    /// How many uploads `user` has under way on this node, and the bytes of quota they hold.
    public func uploadsUnderWay(_ user: UserID) -> (uploads: Int, bytes: Int) { uploads.holding(user) }

    /// Where the attachment's bytes are, for its uploader and members of a dialog that holds it
    /// (`extraAccess` lets stories add their viewers). Anyone else is told it does not exist. The
    /// caller reads the file, or the part of it that was asked for.
    public func download(_ user: UserID, _ id: AttachmentID, extraAccess: (@Sendable (AttachmentID, UserID) async throws -> Bool)? = nil)
        async throws -> StoredAttachment
    {
        guard let attachment = try await store.attachment(id: id) else { throw ChatErrors.attachmentNotFound }
        var allowed = attachment.uploaderID == user
        if !allowed { allowed = try await store.memberSeesAttachment(id, user: user) }
        if !allowed, let extraAccess { allowed = try await extraAccess(id, user) }
        guard allowed, let hash = ContentHash(hex: attachment.hash), let size = files.size(of: hash) else {
            throw ChatErrors.attachmentNotFound
        }
        return StoredAttachment(path: files.path(for: hash), size: size, contentType: attachment.contentType)
    }

    public func attachment(_ id: AttachmentID) async throws -> AttachmentRecord? {
        try await store.attachment(id: id)
    }
}

extension ChatService {
    /// Deletes an attachment (and its file, unless another attachment has the same bytes) when no
    /// message or dialog holds it and `stillUsed` (another module's references) says no.
    public func removeAttachmentIfUnused(_ id: AttachmentID, stillUsed: @Sendable (AttachmentID) async throws -> Bool) async throws {
        guard let attachment = try await store.attachment(id: id) else { return }
        if try await store.isReferenced(id) { return }
        if try await stillUsed(id) { return }
        try await store.deleteAttachment(id)
        if try await store.attachmentCount(hash: attachment.hash) == 0, let hash = ContentHash(hex: attachment.hash) {
            files.delete(hash)
        }
    }
}

extension ChatService {
    /// Descriptions (with URLs) of attachments, for other modules' views (stories).
    public func attachmentViews(_ ids: [AttachmentID]) async throws -> [AttachmentID: AttachmentView] {
        Dictionary(uniqueKeysWithValues: try await store.attachments(ids: ids).map { ($0.id, view($0)) })
    }
}

/// Where one upload is written while it arrives, and the most bytes it may have (with the error
/// past them): what `receivingUpload` holds for it.
public struct UploadSlot: Sendable {
    public let path: String
    public let limit: Int
    public let overLimit: ParleyError
}

/// An attachment's file on disk, for the edge to stream.
public struct StoredAttachment: Sendable {
    public let path: String
    public let size: Int
    public let contentType: String
}
