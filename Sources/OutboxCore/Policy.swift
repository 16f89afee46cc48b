/// What makes one SDK profile different, behind one shape: what is saved, what is
/// retried and when, what triggers a resend. One file per profile.
///
/// Policies are stateless: everything they change lives in the `Simulation`.
/// They are dispatched by a `switch` on the profile, which keeps the hot path
/// free of existential calls.
protocol DeliveryPolicy {
    /// A request was just created by the app; it takes its first state.
    static func created(_ sim: inout Simulation, _ id: Int32)
    /// An attempt ended: an answer arrived, it timed out or the network dropped.
    static func answered(_ sim: inout Simulation, _ id: Int32, _ outcome: Outcome)
    /// The app started; saved requests are already back as `queued`.
    static func launched(_ sim: inout Simulation)
}
