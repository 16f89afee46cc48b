# Mixpanel's Swift SDK at commit 8399b37 (mixpanel/mixpanel-swift, 2026-07-16),
# read from its source: shared/reference/real-sdks.md, section A.2. Every rule
# cites the file and lines it was read from; an assumption rule says what the
# source leaves open. `outbox profiles --source mixpanel-swift` prints this file.
profile mixpanel-swift
title "Mixpanel Swift SDK 8399b37"

rule MPS-1 "Events are saved to SQLite when tracked (Sources/Flush.swift)."
rule MPS-2 "A flush sends what waits in batches of maxBatchSize 50, every flushInterval 60 s (Sources/Constants.swift L19-25, Sources/MixpanelOptions.swift L258)."
rule MPS-3 "Only HTTP 200 counts as success: the batch is deleted (Sources/Network.swift L128)."
rule MPS-4 "Any other answer keeps the batch and stops this flush (Sources/Flush.swift flushQueueInBatches L143-202)."
rule MPS-5 "After failures the next try waits clamp(2^(n-1) x 60 + U{0..29}, 60, 600) s (Sources/FlushRequest.swift retryBackOffTimeWithConsecutiveFailures L179-204)."
rule MPS-6 "There is no attempt limit, and QueueConstants.queueSize 5000 is never read: no cap (Sources/Constants.swift)."
rule MPS-7 assumption "The wait after failure n is 60 s x 2^(n-1) capped at 600 s; the U{0..29} s and the 60 s floor are not modelled (the first retry waits 60 s, as the next interval would)."
rule MPS-8 assumption "Offline a flush fails as a network error and the batch is kept (MPS-4); the rows survive a quit and go at the launch's flush."
rule MPS-9 assumption "flushOnBackground flushes when the app goes to the background, in a background task that iOS ends after about 30 s."
rule MPS-11 assumption "flushSize 1000 (Sources/Constants.swift L19-25) is read as the count that starts a flush; the interval is the usual one."
rule MPS-10 assumption "Retry-After is honoured as a floor: the wait is the larger of it and the backoff (FlushRequest.swift L179-204)."

requests screen

set retry.attempts unlimited
backoff exponential 60s x2 cap 10m

save at create
created rule MPS-1
send rule MPS-2
offline fail
quit keeps saved rule MPS-8

batch up to 50 when 1000 waiting every 60s head-of-line rule MPS-2

on 2xx deliver rule MPS-3
on 4xx retry rule MPS-4
on 5xx retry rule MPS-4
on transport retry rule MPS-8
on exhausted queue rule MPS-6

resend on launch rule MPS-8

on background flush rule MPS-9
background limit 30s rule MPS-9

# What the answers' Retry-After header does (Policy/RetryAfter.swift).
retry-after floor rule MPS-10
