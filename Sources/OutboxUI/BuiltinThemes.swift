// The themes shipped with Outbox, embedded so the binary needs no files beside it.
// Each text is exactly themes/<name>.theme; ThemeTests fails if they drift apart.
enum BuiltinThemes {
    static let texts: [String: String] = [
        "default": #"""
# default: light text on a dark terminal.
# role               fg              bg        attributes
normal               default         default
dim                  bright-black    default
header               bright-white    blue      bold
headerAccent         bright-yellow   blue      bold
border               bright-black    default
paneTitle            cyan            default   bold
paneTitleFocused     bright-white    default   bold reverse
tab                  default         default
tabActive            bright-white    blue      bold
columnHeader         bright-black    default   underline
rowSelected          bright-white    238       bold
statePending         bright-black    default
stateInFlight        bright-cyan     default   bold
stateRetrying        bright-yellow   default   bold
stateQueued          magenta         default   bold
stateDelivered       green           default
stateDropped         bright-red      default   bold
online               bright-green    blue      bold
offline              bright-white    red       bold
consentGranted       bright-green    blue      bold
consentDenied        bright-white    red       bold
consentUndecided     bright-yellow   blue      bold
timelineAxis         bright-black    default
timelineAttempt      bright-cyan     default
timelineOk           green           default   bold
timelineFail         bright-red      default   bold
timelineWait         yellow          default
timelineOffline      bright-black    236
timelineFinal        bright-red      default   bold
timelineNow          bright-white    default
logSDK               default         default
logWarning           bright-yellow   default   bold
logError             bright-red      default
logCompletion        cyan            default
logBackend           bright-black    default
logOutbox            blue            default
banner               bright-white    red       bold
notice               black           yellow
error                bright-white    red       bold
statusBar            black           white
statusKey            bright-white    blue      bold
help                 default         default
helpKey              bright-yellow   default   bold
commandLine          bright-white    default
overlay              default         235
"""#,
        "light": #"""
# light: dark text on a light terminal.
normal               default         default
dim                  8               default
header               white           blue      bold
headerAccent         bright-yellow   blue      bold
border               8               default
paneTitle            blue            default   bold
paneTitleFocused     white           blue      bold
tab                  default         default
tabActive            white           blue      bold
columnHeader         8               default   underline
rowSelected          black           153
statePending         8               default
stateInFlight        blue            default   bold
stateRetrying        130             default   bold
stateQueued          magenta         default   bold
stateDelivered       green           default
stateDropped         red             default   bold
online               white           green     bold
offline              white           red       bold
consentGranted       white           green     bold
consentDenied        white           red       bold
consentUndecided     black           yellow    bold
timelineAxis         8               default
timelineAttempt      blue            default
timelineOk           green           default   bold
timelineFail         red             default   bold
timelineWait         130             default
timelineOffline      8               254
timelineFinal        red             default   bold
timelineNow          black           default
logSDK               default         default
logWarning           130             default   bold
logError             red             default
logCompletion        blue            default
logBackend           8               default
logOutbox            magenta         default
banner               white           red       bold
notice               black           yellow
error                white           red       bold
statusBar            white           8
statusKey            white           blue      bold
help                 default         default
helpKey              blue            default   bold
commandLine          black           default
overlay              default         255
"""#,
        "high-contrast": #"""
# high-contrast: the basic 16 colors only, bold where it helps.
normal               bright-white    black
dim                  white           black
header               black           bright-white bold
headerAccent         black           bright-yellow bold
border               bright-white    black
paneTitle            bright-yellow   black     bold
paneTitleFocused     black           bright-yellow bold
tab                  bright-white    black
tabActive            black           bright-white bold
columnHeader         bright-white    black     underline
rowSelected          black           bright-cyan bold
statePending         white           black
stateInFlight        bright-cyan     black     bold
stateRetrying        bright-yellow   black     bold
stateQueued          bright-magenta  black     bold
stateDelivered       bright-green    black     bold
stateDropped         bright-red      black     bold
online               black           bright-green bold
offline              bright-white    red       bold
consentGranted       black           bright-green bold
consentDenied        bright-white    red       bold
consentUndecided     black           bright-yellow bold
timelineAxis         white           black
timelineAttempt      bright-cyan     black     bold
timelineOk           bright-green    black     bold
timelineFail         bright-red      black     bold
timelineWait         bright-yellow   black
timelineOffline      black           white
timelineFinal        bright-red      black     bold
timelineNow          bright-white    black     bold
logSDK               bright-white    black
logWarning           bright-yellow   black     bold
logError             bright-red      black     bold
logCompletion        bright-cyan     black
logBackend           white           black
logOutbox            bright-magenta  black
banner               bright-white    red       bold
notice               black           bright-yellow bold
error                bright-white    red       bold
statusBar            black           bright-white
statusKey            bright-white    blue      bold
help                 bright-white    black
helpKey              bright-yellow   black     bold
commandLine          bright-white    black     bold
overlay              bright-white    black
"""#,
        "monochrome": #"""
# monochrome: no colors, attributes only. Used with NO_COLOR or a terminal
# without colors.
normal               default         default
dim                  default         default   dim
header               default         default   reverse bold
headerAccent         default         default   reverse bold
border               default         default   dim
paneTitle            default         default   bold
paneTitleFocused     default         default   reverse bold
tab                  default         default
tabActive            default         default   reverse
columnHeader         default         default   underline
rowSelected          default         default   reverse
statePending         default         default   dim
stateInFlight        default         default   bold
stateRetrying        default         default   bold underline
stateQueued          default         default   underline
stateDelivered       default         default
stateDropped         default         default   bold
online               default         default   reverse
offline              default         default   reverse bold underline
consentGranted       default         default   reverse
consentDenied        default         default   reverse bold underline
consentUndecided     default         default   reverse
timelineAxis         default         default   dim
timelineAttempt      default         default
timelineOk           default         default   bold
timelineFail         default         default   bold
timelineWait         default         default   dim
timelineOffline      default         default   dim
timelineFinal        default         default   bold
timelineNow          default         default   bold
logSDK               default         default
logWarning           default         default   bold
logError             default         default   bold
logCompletion        default         default
logBackend           default         default   dim
logOutbox            default         default   dim
banner               default         default   reverse bold
notice               default         default   reverse
error                default         default   reverse bold
statusBar            default         default   reverse
statusKey            default         default   reverse bold
help                 default         default
helpKey              default         default   bold
commandLine          default         default   bold
overlay              default         default
"""#,
    ]
}
