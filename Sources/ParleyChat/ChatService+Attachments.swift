import Foundation
import ParleyCore
import ParleyProtocol
import ParleyFiles

extension ChatService {
    /// Stores an upload whose kind its bytes decide, within that kind's size limit.
    public func upload(_ user: UserID, bytes: [UInt8]) async throws -> AttachmentView {
        guard let info = MediaProbe.probe(bytes) else { throw ChatErrors.unsupportedKind }
        let kind = info.type.kind
        let limit = switch kind {
        case .image: settings.maxImageBytes
        case .video: settings.maxVideoBytes
        case .audio: settings.maxAudioBytes
        }
        guard bytes.count <= limit else { throw ChatErrors.tooLarge(kind.rawValue, limit) }
        let hash = try files.put(bytes)
        let record = AttachmentRecord(
            id: .generate(), uploaderID: user, hash: hash.hex, kind: kind.rawValue, contentType: info.type.contentType,
            size: bytes.count, durationMs: info.durationMs, width: info.width, height: info.height, createdAt: clock.now())
        try await store.insertAttachment(record)
        return view(record)
    }

    /// The attachment's bytes, for its uploader and members of a dialog that holds it
    /// (`extraAccess` lets stories add their viewers). Anyone else is told it does not exist.
    public func download(_ user: UserID, _ id: AttachmentID, extraAccess: (@Sendable (AttachmentID, UserID) async throws -> Bool)? = nil)
        async throws -> (bytes: [UInt8], contentType: String)
    {
        guard let attachment = try await store.attachment(id: id) else { throw ChatErrors.attachmentNotFound }
        var allowed = attachment.uploaderID == user
        if !allowed { allowed = try await store.memberSeesAttachment(id, user: user) }
        if !allowed, let extraAccess { allowed = try await extraAccess(id, user) }
        guard allowed, let hash = ContentHash(hex: attachment.hash), let bytes = files.read(hash) else {
            throw ChatErrors.attachmentNotFound
        }
        return (bytes, attachment.contentType)
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
