/// Told when a device's realtime connection opens or its last one closes (calls keep a call
/// through a short drop-out).
public protocol DevicePresence: Sendable {
    func deviceReconnected(_ device: SessionID, user: UserID) async
    func deviceDisconnected(_ device: SessionID, user: UserID) async
}
