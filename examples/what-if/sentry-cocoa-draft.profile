# What if Outbox modelled a fifth SDK, a real one, from its source code alone,
# with no Swift written for it? Sentry's Cocoa SDK (getsentry/sentry-cocoa at
# commit c34c99b, Sources/Sentry/SentryHttpTransport.m): it keeps every envelope on
# disk, sends each once, deletes it whatever the backend answers, and keeps it
# only when no answer came, for when the network returns or the app starts again.
# Try it: outbox run examples/what-if/sentry-cocoa-draft.outbox
# (The built-in profile `sentry-cocoa`, profiles/real/, models the same SDK
# with its rate limits and cache cap; this draft keeps the name sentry-cocoa-draft.)
profile sentry-cocoa-draft
title "Sentry Cocoa SDK c34c99b, without rate limits or the cache cap (what-if)"

rule SEN-1 "Each envelope is written to the disk cache when it is captured, then sent (sentry-cocoa@c34c99b Sources/Sentry/SentryHttpTransport.m)."
rule SEN-2 "An answer deletes the envelope: a 2xx delivers it; any 4xx or 5xx deletes it, recorded as lost, never retried (SentryHttpTransport.m L385-457)."
rule SEN-3 "No response (no connection, a timeout, the network gone) keeps the envelope cached: 'Will retry sending envelope later' (SentryHttpTransport.m L385-457)."
rule SEN-4 "When connectivity returns, the cached envelopes are sent again, oldest first (SentryHttpTransport.m L94-102, sendAllCachedEnvelopes L294-363)."
rule SEN-5 "At the next start the cached envelopes are sent (sentry-cocoa@c34c99b SentryHttpTransport.m sendAllCachedEnvelopes L294-363, run at start-up)."
rule SEN-6 assumption "Offline, an envelope is still sent and fails with no response (SEN-3): the transport does not check reachability before a send."
rule SEN-7 assumption "Not modelled here, as the profile language lacks them (issue 24): the 429 / X-Sentry-Rate-Limits mute of a category (default 60 s), the cache cap of 30 envelopes (oldest deleted), and the 0.1 s gap between cached sends."
rule SEN-8 assumption "captureException() makes an error envelope, sent and kept as any other envelope (its category's rate limit is SEN-7's)."

# Sentry's own app call: an error envelope, on the key a.
call capture NAME makes error key a crash "captureException(): an error envelope (Sentry)"

save at create
created rule SEN-1
send rule SEN-1
offline fail
quit keeps saved rule SEN-5

on 2xx deliver rule SEN-2
on 4xx drop rejected rule SEN-2
on 5xx drop rejected rule SEN-2
on transport queue rule SEN-3
on offline queue rule SEN-6

resend on network rule SEN-4
resend on launch rule SEN-5
