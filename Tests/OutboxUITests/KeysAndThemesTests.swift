import OutboxTestSupport
import XCTest
@testable import OutboxCore
@testable import OutboxUI

final class KeysAndThemesTests: XCTestCase {
    func test_keyTable_hasNoKeyBoundTwice() {
        XCTAssertEqual(KeyMap.conflicts, [])
        XCTAssertEqual(Set(KeyMap.bindings.map(\.command)), Set(Command.allCases), "every command has a key")
    }

    func test_docsKeys_isGeneratedFromTheKeyTable() throws {
        let doc = try String(contentsOfFile: packageRoot + "/docs/keys.md", encoding: .utf8)
        XCTAssertEqual(doc, KeyMap.markdown, "docs/keys.md is stale: regenerate with `swift run outbox keys > docs/keys.md`")
    }

    func test_themeFiles_matchTheBuiltInCopies_andSetEveryRole() throws {
        for name in ["default", "light", "high-contrast", "monochrome"] {
            let text = try String(contentsOfFile: packageRoot + "/themes/\(name).theme", encoding: .utf8)
            XCTAssertEqual(text.trimmingCharacters(in: .newlines), BuiltinThemes.texts[name], "\(name) drifted")
            guard case .success(let t) = Theme.parse(text, name: name, file: name) else { return XCTFail("\(name) does not parse") }
            XCTAssertEqual(Set(t.styles.keys), Set(Role.allCases), "\(name) does not set every role")
        }
        XCTAssertTrue(Theme.monochrome.isMonochrome)
        XCTAssertFalse(Theme.builtin("default")!.isMonochrome)
    }

    func test_badThemeFile_namesFileAndLine() {
        let cases: [(String, String)] = [
            ("normal default default\nfoo red default\n", "t.theme:2: unknown role `foo`"),
            ("normal default default\nheader purple default\n", "t.theme:2: bad color `purple`"),
            ("normal default default blink\n", "t.theme:1: unknown attribute `blink`"),
            ("normal red\n", "t.theme:1: `normal` needs a foreground and a background"),
            ("header red default", "t.theme:1: no `normal` role"),
            ("normal default default\nnormal red default\n", "t.theme:2: role `normal` is set twice"),
        ]
        for (text, want) in cases {
            guard case .failure(let e) = Theme.parse(text, name: "t", file: "t.theme") else {
                XCTFail("accepted: \(text)")
                continue
            }
            XCTAssertTrue(e.description.hasPrefix(want), e.description)
        }
    }
}
