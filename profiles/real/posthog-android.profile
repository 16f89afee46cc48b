# PostHog's Android SDK at commit 1042d25 (PostHog/posthog-android, 2026-08-21),
# read from its source: shared/reference/real-sdks.md, section A.2. Every rule
# cites the file and lines it was read from; an assumption rule says what the
# source leaves open. `outbox profiles --source posthog-android` prints this file.
profile posthog-android
title "PostHog Android SDK 1042d25"

rule PHA-1 "Events go to a file queue when captured (posthog/src/main/java/com/posthog/internal/PostHogQueue.kt)."
rule PHA-2 "A flush sends at most DEFAULT_MAX_BATCH_SIZE 50 events, when DEFAULT_FLUSH_AT 20 wait or every 30 s (posthog/src/main/java/com/posthog/PostHogConfig.kt L131, L565-576)."
rule PHA-3 "Below 400 the batch is kept or removed as delivered; a 2xx removes it (internal/PostHogQueue.kt deleteFilesIfAPIError L519-552)."
rule PHA-4 "408, 429, 500, 502, 503, 504 and network errors are retried (internal/EndpointSpec.kt L127-129), after min(2^(n-1), 30) s (PostHogQueue.kt calculateDelay L363-374)."
rule PHA-5 "Any other answer of 400 or more deletes the batch (PostHogQueue.kt deleteFilesIfAPIError L519-552)."
rule PHA-6 "When retryCount passes maxRetries 3 every record is dropped (PostHogQueue.kt executeWithRetry L196-226)."
rule PHA-7 "413 halves the batch and it is sent again (PostHogQueue.kt deleteFilesIfAPIError L519-552)."
rule PHA-8 "At most DEFAULT_MAX_QUEUE_SIZE 1000 events are kept; the oldest file goes (PostHogQueue.kt removeRecordSync L94-106)."
rule PHA-9 "isConnected() gates every flush: offline nothing is sent and the queue waits (PostHogQueue.kt)."
rule PHA-10 assumption "The queue is files, so it survives a quit and goes at the next launch's first flush; one batch is sent at a time (head-of-line)."
rule PHA-11 assumption "A 1xx or 3xx answer is retried as the other answers below 400 are kept (deleteFilesIfAPIError keeps <400)."
rule PHA-13 "The lifecycle's onStop flushes the queue (the app going to the background)."
rule PHA-12 assumption "Retry-After, when above 0, replaces the backoff (PostHogQueue.kt calculateDelay L363-374)."

requests screen

set retry.attempts 4
backoff exponential 1s x2 cap 30s

save at create
created rule PHA-1
send rule PHA-2
offline hold rule PHA-9
quit keeps saved rule PHA-10

keep at most 1000 drop oldest rule PHA-8
batch up to 50 when 20 waiting every 30s head-of-line rule PHA-2
batch split 413 rule PHA-7
batch exhausted drops queue rule PHA-6

on 2xx deliver rule PHA-3
on 1xx retry rule PHA-11
on 3xx retry rule PHA-11
on 4xx drop rejected rule PHA-5
on 408 retry rule PHA-4
on 429 retry rule PHA-4
on 5xx drop rejected rule PHA-5
on 500 retry rule PHA-4
on 502 retry rule PHA-4
on 503 retry rule PHA-4
on 504 retry rule PHA-4
on transport retry rule PHA-4
on exhausted drop exhausted rule PHA-6

resend on launch rule PHA-10
resend on network rule PHA-9

on background flush rule PHA-13

# What the answers' Retry-After header does (Policy/RetryAfter.swift).
retry-after replace rule PHA-12
