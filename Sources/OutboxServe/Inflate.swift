import CZlib

/// Request bodies sent compressed (`Content-Encoding: gzip` or `deflate`),
/// inflated through zlib with a cap on what comes out: a small body that
/// inflates past the cap is refused, not read into memory (a zip bomb).
public enum Inflate {
    public enum Encoding: String, Sendable {
        case gzip, deflate
    }

    public enum Failure: Error, Equatable, Sendable {
        /// The body is not what its encoding says (zlib's message).
        case corrupt(String)
        /// It inflates to more than the cap.
        case tooLarge(limit: Int)

        public var message: String {
            switch self {
            case .corrupt(let why): return "the body is not valid compressed data (\(why))"
            case .tooLarge(let limit): return "the body inflates to more than \(limit) bytes"
            }
        }
    }

    /// The encoding a `Content-Encoding` header names, or nil for none
    /// (`identity`, absent); an unknown one is returned as nil too, and the body read as it is.
    public static func encoding(_ header: String?) -> Encoding? {
        guard let h = header?.lowercased().trimmingSpaces, !h.isEmpty else { return nil }
        if h == "gzip" || h == "x-gzip" { return .gzip }
        if h == "deflate" { return .deflate }
        return nil
    }

    /// Inflates `data`. gzip takes the gzip wrapper; deflate takes the zlib
    /// wrapper (RFC 9110) and, failing that, a raw deflate stream, as some clients send.
    public static func inflate(_ data: [UInt8], _ encoding: Encoding, limit: Int) -> Result<[UInt8], Failure> {
        switch encoding {
        case .gzip: return run(data, windowBits: 16 + 15, limit: limit)
        case .deflate:
            let zlib = run(data, windowBits: 15, limit: limit)
            if case .failure(.corrupt) = zlib { return run(data, windowBits: -15, limit: limit) }
            return zlib
        }
    }

    static func run(_ data: [UInt8], windowBits: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(.corrupt("zlib did not start"))
        }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = data
        return input.withUnsafeMutableBufferPointer { inBuf -> Result<[UInt8], Failure> in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { outBuf -> Int32 in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                if out.count + produced > limit { return .failure(.tooLarge(limit: limit)) }
                out.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END: return .success(out)
                case Z_OK: continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return .failure(.corrupt("it ends before the stream does"))
                default:
                    let why = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return .failure(.corrupt(why))
                }
            }
        }
    }
}

extension String {
    /// Without spaces and tabs at either end.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
