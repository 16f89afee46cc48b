/// What may answer an attempt beside the backend's plan (SENDS, an extension):
/// the answers a fleet's backend gave one device, replayed by number
/// (`server 503 on sends 4,9`), or the fleet's backend itself deciding as the
/// attempts come (`outbox fleet`, docs/fleet.md: a backend with a capacity).
///
/// Every attempt made online is a send, numbered from 1 over the whole run
/// (what `on sends` counts); a profile and a scenario without either pay one
/// increment and one comparison a send.
struct Admission {
    /// Attempts made online so far: a request's or a batch's, each one send.
    var sends: Int32 = 0
    /// `server A on sends N,...`: by send number, ascending, one answer each.
    var answers: [(send: Int32, answer: Answer)] = []
    /// The first of `answers` not yet used.
    var next = 0
    /// The fleet's backend lane the device sends to, or nil.
    var gate: FleetGate?
    /// Whether anything but the plan may answer: one comparison a send.
    var active = false

    /// Lays `answer` on the numbered sends; a later line's answer for a number wins.
    mutating func add(_ answer: Answer, sends numbers: [Int32]) {
        var merged: [(send: Int32, answer: Answer)] = []
        merged.reserveCapacity(answers.count + numbers.count)
        var i = 0, j = 0
        let new = numbers.sorted()
        while i < answers.count || j < new.count {
            if j == new.count || (i < answers.count && answers[i].send < new[j]) {
                merged.append(answers[i])
                i += 1
            } else {
                if i < answers.count && answers[i].send == new[j] { i += 1 }
                if merged.last?.send != new[j] { merged.append((new[j], answer)) }
                j += 1
            }
        }
        // Those already sent are past: only what is still to come is kept.
        let firstToCome = merged.firstIndex { $0.send > sends } ?? merged.count
        answers = Array(merged[firstToCome...])
        next = 0
        active = gate != nil || !answers.isEmpty
    }
}

/// The fleet's backend as one device meets it: asked the answer of each send.
/// A class, shared by the devices of a lane (`outbox fleet` runs a lane on one
/// thread); see Fleet/FleetGate.swift.
extension Simulation {
    /// The answer of the send just counted, planned `planned` (SENDS).
    @inline(never)
    mutating func admitted(_ planned: Answer) -> Answer {
        let n = admission.sends
        var answer = planned
        if let gate = admission.gate { answer = gate.admit(planned, send: n, at: now) }
        while admission.next < admission.answers.count && admission.answers[admission.next].send < n {
            admission.next += 1
        }
        if admission.next < admission.answers.count && admission.answers[admission.next].send == n {
            answer = admission.answers[admission.next].answer
            admission.next += 1
        }
        return answer
    }

    /// Joins the device to a fleet's backend lane (`outbox fleet`): from now on
    /// it answers every send as well as the plan.
    public mutating func send(to gate: FleetGate) {
        admission.gate = gate
        admission.active = true
    }

    /// Attempts made online so far (what `server ... on sends` counts).
    public var sends: Int { Int(admission.sends) }
}
