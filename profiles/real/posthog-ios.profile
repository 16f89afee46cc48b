# PostHog's iOS SDK at commit 64c7dd0 (PostHog/posthog-ios, 2026-08-07), read
# from its source: shared/reference/real-sdks.md, section A.2. Every rule cites
# the file and lines it was read from; an assumption rule says what the source
# leaves open. `outbox profiles --source posthog-ios` prints this file.
profile posthog-ios
title "PostHog iOS SDK 64c7dd0"

rule PHI-1 "Events go to a file-backed queue when captured (PostHog/PostHogQueue.swift add L369-389)."
rule PHI-2 "A flush sends at most maxBatchSize 50 events, when flushAt 20 wait or every flushIntervalSeconds 30 (PostHog/PostHogConfig.swift L25-37)."
rule PHI-3 "2xx: the batch is removed from the queue (PostHog/PostHogQueue.swift handleResult L149-219)."
rule PHI-4 "A network error, 408, 429, 500, 502, 503, 504 or any 3xx is retried (PostHog/QueueEndpoint+Factories.swift L10-13), after min(n x retryDelay 1 s, maxRetryDelay 30 s) (PostHogQueue.swift L149-219, PostHogSDK.swift L25-26)."
rule PHI-5 "Any other answer pops the batch from the queue: dropped (PostHogQueue.swift handleResult L149-219)."
rule PHI-6 "When the failure count passes maxRetries 3, the whole queue is dropped (PostHogQueue.swift dropAllQueuedRecords L226-233)."
rule PHI-7 "413 halves the batch cap and the events are sent again (PostHogQueue.swift handleResult L149-219)."
rule PHI-8 "At most maxQueueSize 1000 events are kept: 'Queue is full, dropping oldest record' (PostHogQueue.swift add L369-389)."
rule PHI-9 "Reachability pauses the queue while offline; it resumes when the network returns (PostHogQueue.swift L242-264)."
rule PHI-10 assumption "The queue is a file, so what it holds survives a quit and goes at the next launch's first flush; a flush runs one batch at a time (head-of-line)."
rule PHI-12 "Going to the background flushes the queue (PostHog/PostHogSDK.swift L267-268)."
rule PHI-11 assumption "Retry-After is read as a floor: the wait is the larger of the backoff and it (PostHogQueue.swift L149-219, max(delay, retryAfter))."

requests screen

set retry.attempts 4
backoff linear 1s cap 30s

save at create
created rule PHI-1
send rule PHI-2
offline hold rule PHI-9
quit keeps saved rule PHI-10

keep at most 1000 drop oldest rule PHI-8
batch up to 50 when 20 waiting every 30s head-of-line rule PHI-2
batch split 413 rule PHI-7
batch exhausted drops queue rule PHI-6

on 2xx deliver rule PHI-3
on 3xx retry rule PHI-4
on 4xx drop rejected rule PHI-5
on 408 retry rule PHI-4
on 429 retry rule PHI-4
on 5xx drop rejected rule PHI-5
on 500 retry rule PHI-4
on 502 retry rule PHI-4
on 503 retry rule PHI-4
on 504 retry rule PHI-4
on transport retry rule PHI-4
on exhausted drop exhausted rule PHI-6

resend on launch rule PHI-10
resend on network rule PHI-9

on background flush rule PHI-12

# What the answers' Retry-After header does (Policy/RetryAfter.swift).
retry-after floor rule PHI-11
