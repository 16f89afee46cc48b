/// An `expect` check.
public enum Check: Equatable, Sendable {
    case state(String, RequestState)
    case dropped(String, DropReason)
    case attempts(String, Int)
    case saved(Int)
    case received(String, Int)
    case counted(String, Int)
    case log(String)
    case completion(String, Completion)
    /// An extension: the backend's revenue in one currency (LT-13).
    case revenue(String, AmountSum)
    /// An extension (`request ID STATE`): one request, by the number the live
    /// screen and the text timeline show as #ID, is in a state.
    case requestState(Int32, RequestState)
    /// An extension (`request ID dropped REASON`).
    case requestDropped(Int32, DropReason)
    /// An extension (`request ID attempts N`).
    case requestAttempts(Int32, Int)
}
