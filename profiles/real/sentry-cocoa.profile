# Sentry's Cocoa SDK at commit c34c99b (getsentry/sentry-cocoa, 2026-08-14), read
# from its source: shared/reference/real-sdks.md, section A.2. Every rule cites
# the file and lines it was read from; an assumption rule says what the source
# leaves open. `outbox profiles --source sentry-cocoa` prints this file.
# (examples/what-if/sentry-cocoa.profile is the same SDK written before the
# profile language had rate limits and the cache cap.)
profile sentry-cocoa
title "Sentry Cocoa SDK c34c99b"

rule SNC-1 "Each envelope is written to the disk cache when captured, then sent (Sources/Sentry/SentryHttpTransport.m)."
rule SNC-2 "Envelopes go one at a time, oldest first (SentryHttpTransport.m sendAllCachedEnvelopes L294-363)."
rule SNC-3 "Any answer deletes the envelope: a 2xx delivers it; a 4xx or 5xx deletes it, recorded as lost, never retried (SentryHttpTransport.m L385-457)."
rule SNC-4 "No response (no connection, a timeout) keeps the envelope cached: 'Will retry sending envelope later' (SentryHttpTransport.m L385-457)."
rule SNC-5 "When connectivity returns the cached envelopes are sent again (SentryHttpTransport.m L94-102)."
rule SNC-6 "At most maxCacheItems 30 envelopes are cached; the oldest is deleted, recorded as cache_overflow (Sources/Swift/Options.swift L136, SentryHttpTransport.m L256-259)."
rule SNC-7 "The cached envelopes are sent at the next start (sendAllCachedEnvelopes)."
rule SNC-8 assumption "A 429 (or X-Sentry-Rate-Limits) disables the envelope's category until Retry-After, 60 s without the header; envelopes of a limited category are dropped before sending (Sources/Swift/Networking/DefaultRateLimits.swift L43-58)."
rule SNC-9 assumption "Offline an envelope is still sent and fails with no response (SNC-4); the 0.1 s gap between cached sends (SentryTransportFactory.m L53) is not modelled."
rule SNC-10 assumption "captureException() makes an error envelope, sent and kept as any other."

call capture NAME makes error key a crash "captureException(): an error envelope (Sentry)"

save at create
created rule SNC-1
send rule SNC-2
offline fail
quit keeps saved rule SNC-7

keep at most 30 drop oldest rule SNC-6
batch up to 1 head-of-line rule SNC-2

on 2xx deliver rule SNC-3
on 4xx drop rejected rule SNC-3
on 5xx drop rejected rule SNC-3
on transport queue rule SNC-4
on offline queue rule SNC-9

resend on network rule SNC-5
resend on launch rule SNC-7

# What the answers' Retry-After header does (Policy/RetryAfter.swift).
retry-after mute default 60s rule SNC-8
