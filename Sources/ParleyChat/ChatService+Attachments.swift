import Foundation
import ParleyCore
import ParleyProtocol
import ParleyFiles

extension ChatService {
    /// Stores an upload already written to the staging folder (`stagingPath()`): its kind is what
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

    /// A new path in the attachment store's staging folder, for an upload to be written to.
    public func stagingPath() -> String { files.newStagingPath() }

    /// Removes a staged upload that will not be stored (refused or cut off while it arrived).
    public func discardStaged(at path: String) { files.discard(stagedAt: path) }

    /// The most bytes `user`'s next upload may have, and the error past it: the largest kind's
    /// limit, or what is left of the quota when that is less. The edge refuses an upload as soon
    /// as it passes this, while it is still arriving.
    public func uploadAllowance(_ user: UserID) async throws -> (bytes: Int, overLimit: ParleyError) {
        let left = max(settings.attachmentQuotaBytes - (try await store.attachmentBytes(uploadedBy: user)), 0)
        if left < settings.largestUpload { return (left, ChatErrors.quotaExceeded(settings.attachmentQuotaBytes)) }
        return (settings.largestUpload,
                ParleyError(.tooLarge, code: "payload_too_large", "Attachments are at most \(settings.largestUpload) bytes"))
    }

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

/// An attachment's file on disk, for the edge to stream.
public struct StoredAttachment: Sendable {
    public let path: String
    public let size: Int
    public let contentType: String
}
