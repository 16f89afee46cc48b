# Segment's analytics-swift at commit c9a0d63 with its "smart retry" mode on
# (httpConfig from the CDN settings), read from its source:
# shared/reference/real-sdks.md, section A.2. Every rule cites the file and
# lines it was read from; an assumption rule says what the source leaves open.
# `outbox profiles --source segment-swift-retry` prints this file.
profile segment-swift-retry
title "Segment analytics-swift c9a0d63 (smart retry mode)"

rule SGR-1 "Events are written to disk files when tracked (Sources/Segment/Utilities/Storage/Storage.swift)."
rule SGR-2 "A flush uploads what waits, when flushAt 20 events wait or every flushInterval 30 s (Sources/Segment/Configuration.swift L113-114)."
rule SGR-3 "A 2xx deletes the uploaded batch (RetryStateMachine.swift handleResponse L16-56)."
rule SGR-4 "4xx drops the batch but 408, 410, 429 and 460, which are retried; 5xx is retried but 501 and 505, which drop it (Sources/Segment/Utilities/Retry/HttpConfig.swift L34-82)."
rule SGR-5 "The wait is min(0.5 s x 2^(n-1), 300 s) plus up to 10% (jitterPercent 10), clamped to 300 s (RetryStateMachine.swift calculateBackoffInterval L166-177)."
rule SGR-6 "A batch is tried at most maxRetryCount 100 times and for at most maxTotalBackoffDuration 12 h, then dropped (RetryStateMachine.swift shouldUploadBatch L58-119)."
rule SGR-7 "Smart retry is on when the CDN settings carry httpConfig (Sources/Segment/Plugins/SegmentDestination.swift L79-93)."
rule SGR-8 assumption "A file holds up to 475 KB (Storage.swift L14): a batch takes events while their bytes fit; an event is about 1 KB (request.size) and its attributes."
rule SGR-9 assumption "Offline an upload fails as a network error and is retried like a 5xx; the files survive a quit and go at the next flush after the launch."
rule SGR-10 assumption "A retry goes when its wait ends (the SDK checks the wait at its next upload, up to an interval later)."
rule SGR-12 "Background: enterBackground() flushes and the interval timer is suspended (SegmentDestination.swift L113-115, IntervalBasedFlushPolicy.swift L64-67)."
rule SGR-13 assumption "Each upload runs in a beginBackgroundTask that is cancelled on expiry (iOSLifecycleMonitor.swift L190-206); iOS gives it about 30 s."
rule SGR-11 assumption "A 429 (or Retry-After on any retried answer) pauses the whole pipeline until Retry-After (default and clamp 300 s), without counting an attempt (RetryStateMachine.swift L16-56, L208-212); the 100th pause since the last 2xx (rateLimitConfig maxRetryCount) drops the batch, here at that answer where the SDK drops it at the upload after the pause (shouldUploadBatch L58-119)."

requests screen

set retry.attempts 100
backoff exponential 0.5s x2 cap 5m
backoff give up after 12h
set retry.jitter +10%

save at create
created rule SGR-1
send rule SGR-2
offline fail
quit keeps saved rule SGR-9

set request.size 1KB
batch up to 10000 and 475KB when 20 new every 30s rule SGR-2

on 2xx deliver rule SGR-3
on 4xx drop rejected rule SGR-4
on 408 retry rule SGR-4
on 410 retry rule SGR-4
on 429 retry rule SGR-4
on 460 retry rule SGR-4
on 5xx retry rule SGR-4
on 501 drop rejected rule SGR-4
on 505 drop rejected rule SGR-4
on transport retry rule SGR-9
on exhausted drop exhausted rule SGR-6

on background flush rule SGR-12
background limit 30s rule SGR-13

# What the answers' Retry-After header does (Policy/RetryAfter.swift).
retry-after pause default 5m cap 5m limit 100 rule SGR-11
