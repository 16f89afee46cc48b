# What if the iOS SDK waited with exponential backoff and full jitter instead of
# its fixed 30s, 1m, 2m ladder? Everything else is the built-in iOS profile.
# Try it: outbox run examples/what-if/ios-jitter.outbox
profile ios-jitter
base ios
title "iOS with exponential backoff and full jitter (what-if)"

rule IOSJ-4 "Up to retry.attempts attempts; before retry n it waits a random 0 to 2^(n-1) s (delays 1s,2s,4s,... with retry.jitter full, the last repeating); when the last fails: dropped (exhausted), completion false."

set retry.attempts 8
set retry.delays 1s,2s,4s,8s,16s,32s
set retry.jitter full

# The answers iOS retries now cite IOSJ-4; 2xx and 4xx are still IOS-3.
on transport retry rule IOSJ-4
on 5xx retry rule IOSJ-4
on exhausted drop exhausted rule IOSJ-4
