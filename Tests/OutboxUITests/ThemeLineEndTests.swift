import OutboxTestSupport
import XCTest

@testable import OutboxUI

/// Issue 10: a theme saved with Windows line ends (CRLF) is the same theme.
final class ThemeLineEndTests: XCTestCase {
    func testCRLFThemeParsesLikeItsLFOriginal() throws {
        for (name, text) in BuiltinThemes.texts {
            let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
            XCTAssertTrue(crlf.contains("\r\n"))
            let a = try Theme.parse(text, name: name, file: "\(name).theme").get()
            let b = try Theme.parse(crlf, name: name, file: "\(name).theme").get()
            for role in Role.allCases { XCTAssertEqual(a.style(role), b.style(role), "\(name): \(role)") }
        }
    }

    /// An error in a CRLF file still names its line.
    func testCRLFThemeErrorNamesTheLine() {
        let text = "normal default default\r\n# c\r\nbogus red blue\r\n"
        guard case .failure(let e) = Theme.parse(text, name: "t", file: "t.theme") else { return XCTFail("parsed") }
        XCTAssertEqual(e.line, 3)
        XCTAssertTrue(e.message.hasPrefix("unknown role `bogus`"), e.message)
    }
}
