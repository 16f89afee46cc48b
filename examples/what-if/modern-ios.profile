# What if iOS delivered as the modern analytics SDKs do? The policy that the
# profile language could not say before issue 24, with no Swift written for
# it: batches of 20 or every 30 seconds, exponential backoff from 1 second
# doubling to at most 5 minutes with full jitter, Retry-After honoured, at
# most 1000 requests kept (the oldest dropped), and a flush when the app goes
# to the background. Try it: outbox run examples/what-if/modern-ios.outbox
profile modern-ios
base ios
title "iOS with a modern SDK's delivery policy (what-if)"

rule MOD-1 "Requests go out in batches of at most 20, when 20 are waiting or every 30 seconds (PostHog's and Segment's flushAt and flushInterval)."
rule MOD-2 "A failed batch waits min(1 s x 2^(n-1), 5 min), drawn from 0 to it (full jitter), up to 10 attempts."
rule MOD-3 "A 429 is retried, and its Retry-After is a floor of the wait (PostHog iOS, Mixpanel)."
rule MOD-4 "At most 1000 requests are kept; when full, the oldest waiting one is dropped (PostHog's maxQueueSize)."
rule MOD-5 "Going to the background flushes what waits (Segment, PostHog, Mixpanel)."

set retry.attempts 10
backoff exponential 1s x2 cap 5m
set retry.jitter full

batch up to 20 when 20 waiting every 30s rule MOD-1
on 429 retry rule MOD-3
on 5xx retry rule MOD-2
on transport retry rule MOD-2
retry-after floor rule MOD-3
keep at most 1000 drop oldest rule MOD-4
on background flush rule MOD-5
