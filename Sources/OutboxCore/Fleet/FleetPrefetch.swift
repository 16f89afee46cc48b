import COutboxHints

/// Hints that memory will soon be used (docs/performance.md, "Fleets"): a
/// fleet's lane asks for the next devices' memory while it steps one, since a
/// million devices' memory is never in cache. A hint is never a read: it
/// changes nothing, and any address is safe.
///
/// The addresses are read as plain words at offsets found once (`init`):
/// taking a reference (an array, an object) would retain it, a write to the
/// very memory not yet in cache, and calling a method on a device's
/// `Simulation` copied all of it.
struct Prefetch {
    /// Offsets in a `Simulation` of the references to blocks a step reads: the
    /// request table's buffer, the timer heap, the live sets, the order of the
    /// queue, the requests by name, the backend's counts.
    let simulationWords: [Int]
    /// Offset in the request table's buffer object of the requests' address.
    let requestItemsWord: Int
    let requestBufferWord: Int
    /// Offsets in a store object of its chunk table's arrays.
    let storeWords: [Int]

    init(store: InMemoryDeviceStore) {
        func at<T>(_ k: KeyPath<Simulation, T>) -> Int { MemoryLayout<Simulation>.offset(of: k)! }
        requestBufferWord = at(\.requests) + RequestTable.bufferWord
        var words = [requestBufferWord, at(\.timers) + TimerQueue.heapWord]
        words += LiveSets.arrayWords.map { at(\.liveSets) + $0 }
        words.append(at(\.queuedHeap) + MemoryLayout<IDHeap>.offset(of: \IDHeap.items)!)
        words += RequestsByName.arrayWords.map { at(\.requestsByName) + $0 }
        words.append(at(\.backend) + MemoryLayout<Backend>.offset(of: \Backend.receivedByName)!)
        words.append(at(\.backend) + MemoryLayout<Backend>.offset(of: \Backend.countedByName)!)
        simulationWords = words
        requestItemsWord = RequestTable.itemsWord
        storeWords = store.arrayWords
    }

    /// The cache lines of `bytes` bytes from `p`.
    @inline(__always)
    static func bytes(_ p: UnsafeRawPointer, _ bytes: Int) {
        var o = 0
        while o < bytes {
            outbox_prefetch(p + o)
            o += 64
        }
    }

    /// Two lines from the address held in the word at `p` (an array's
    /// header and first elements, an object's first fields), if any.
    @inline(__always)
    static func through(_ p: UnsafeRawPointer) {
        guard let o = p.load(as: UnsafeRawPointer?.self) else { return }
        outbox_prefetch(o)
        outbox_prefetch(o + 64)
    }

    /// The blocks the simulation at `s` points at (`s` in cache by now).
    @inline(__always)
    func blocks(of s: UnsafeRawPointer) {
        for w in simulationWords { Prefetch.through(s + w) }
    }

    /// The requests, through the request table's buffer (in cache by now).
    @inline(__always)
    func requests(of s: UnsafeRawPointer) {
        guard let b = (s + requestBufferWord).load(as: UnsafeRawPointer?.self) else { return }
        Prefetch.through(b + requestItemsWord)
    }

    /// The chunk table's arrays of the store object at `o` (in cache by now).
    /// (A fleet's store keeps no spare chunk: its lane's pool holds them, D379.)
    @inline(__always)
    func tables(of o: UnsafeRawPointer) {
        for w in storeWords { Prefetch.through(o + w) }
    }
}
