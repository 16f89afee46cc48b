# The same as ios-jitter-429, and the answer's Retry-After is a floor of the
# wait: max(backoff, Retry-After), as PostHog iOS and Mixpanel Swift read it
# (examples/fleet/retry-after-storm.fleet).
profile ios-jitter-429-floor
base ios
title "iOS, full jitter, a 429 retried, Retry-After a floor (what-if)"
rule J429-1 "A 429 is retried as a 5xx is (IOS-4), with full jitter on retry.delays."
rule J429-2 "A retry waits the larger of its jittered backoff and the answer's Retry-After."
set retry.jitter full
on 429 retry rule J429-1
retry-after floor rule J429-2
