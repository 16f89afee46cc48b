import Foundation
import XCTest

@testable import OutboxServe

/// The JSON reader the server reads bodies with: what it makes of valid
/// documents, and that it refuses what Foundation's JSONSerialization refuses
/// (its oracle for validity) and no more.
final class JSONReaderTests: XCTestCase {
    func read(_ s: String) -> JSONValue? { JSONValue.parse(Array(s.utf8)) }

    func test_documents_areReadWithSortedKeys_escapesAndNumbers() {
        let cases: [(String, String)] = [
            (#"{"b":1,"a":[true,false,null],"c":"x"}"#, #"{"a":[true,false,null],"b":1,"c":"x"}"#),
            (#" { "k" : "v" } "#, #"{"k":"v"}"#),
            (#"{"a":1,"a":2}"#, #"{"a":2}"#),
            (#"["\u00e9\n\t\"\\\/", "\ud83d\ude00"]"#, "[\"é\\n\\t\\\"\\\\/\",\"😀\"]"),
            ("[-0.5e2, 12, 1E3, 0]", "[-50,12,1000,0]"),
            (#""top""#, #""top""#),
            ("[]", "[]"), ("{}", "{}"), ("3", "3"),
        ]
        for (input, json) in cases {
            XCTAssertEqual(read(input)?.json, json, input)
        }
        XCTAssertEqual(read(#"{"batch":[{"messageId":"m1"}]}"#)?["batch"]?.array?.first?["messageId"]?.string, "m1")
    }

    func test_invalidDocuments_areRefused_asJSONSerializationRefusesThem() {
        let inputs = [
            "", " ", "{", "}", "{'a':1}", "[01]", "[1.]", "[.5]", "[1e]", "[+1]", "[-]",
            "tru", "nul", "[true false]", "{\"a\" 1}", "{1:2}", "\"a\u{01}b\"", "\"\\x\"", "\"\\u12\"",
            "\"\\ud800\"", "\"\\udc00x\"", "[1e400]", "[1] x", "[\"a\"", "\"abc", "[1,2", "//c\n1", "NaN",
            "[\"\\u00e9\"]", "[1, 2.5e-3, -0]", "{\"a\":{\"b\":[{}]}}", "\"\\ud83d\\ude00\"",
        ]
        for s in inputs {
            let foundation =
                (try? JSONSerialization.jsonObject(with: Data(s.utf8), options: [.fragmentsAllowed])) != nil
            XCTAssertEqual(read(s) != nil, foundation, "`\(s)`: Foundation says \(foundation ? "valid" : "invalid")")
        }
        // Trailing commas, which the RFC does not allow and Foundation on Linux
        // accepts: refused, as a backend would answer them 400.
        XCTAssertNil(read("[1,]"))
        XCTAssertNil(read(#"{"a":1,}"#))
        // Not UTF-8 inside a string.
        XCTAssertNil(JSONValue.parse([0x22, 0xFF, 0x22]))
        XCTAssertNil(JSONValue.parse([0x22, 0x61, 0xC3, 0x22]), "a sequence cut short after ASCII")
        // UTF-8 as it is, unescaped, and ASCII: taken whole.
        XCTAssertEqual(JSONValue.parse(Array("\"é😀\"".utf8)), .string("é😀"))
        XCTAssertEqual(JSONValue.parse(Array("\"plain\"".utf8)), .string("plain"))
    }

    func test_deepNesting_isRefusedPastTheLimit_withoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertNil(read(deep))
        let ok = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        XCTAssertNotNil(read(ok))
    }
}
