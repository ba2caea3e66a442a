/// The version this build of Parley reports (`/admin/status`).
public enum ParleyVersion {
    public static let current = "0.1.0"
}
