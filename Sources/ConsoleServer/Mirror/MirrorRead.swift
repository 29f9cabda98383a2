import BookCornersAPI
import Foundation

/// One mirror read granted by the budget: whose tokens it reads with, the call it goes out as
/// (its first attempt paid by the grant's ticket), and when it started, which is the moment
/// what it reads is confirmed at.
struct MirrorRead: Sendable {
    let credentials: StaffCredentials
    let context: CallContext
    let startedAt: Date
}
