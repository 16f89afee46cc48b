# Amplitude's Kotlin SDK (core) at commit b18926e (amplitude/Amplitude-Kotlin,
# 2026-08-21), read from its source: shared/reference/real-sdks.md, section A.2.
# Every rule cites the file and lines it was read from; an assumption rule says
# what the source leaves open. `outbox profiles --source amplitude-kotlin` prints this file.
profile amplitude-kotlin
title "Amplitude-Kotlin b18926e"

rule AMK-1 "Events are written to disk files when tracked (analytics-core/.../platform/EventPipeline.kt)."
rule AMK-2 "A flush sends what waits, when FLUSH_QUEUE_SIZE 30 events wait or every FLUSH_INTERVAL_MILLIS 30 s (analytics-core/.../Configuration.kt L49-51)."
rule AMK-3 "A 2xx removes the file (utilities/FileResponseHandler.kt L43-175)."
rule AMK-4 "408, 429 and 5xx are retried on a fixed schedule of 1, 8, 32, 128 and 300 s, the last repeating, each jittered by half of itself either way (utilities/ExponentialBackoffRetryHandler.kt L13-15, L34-35, L76, L82)."
rule AMK-5 "There is no longer a cap on retries: maxRetryAttempt is deprecated (ExponentialBackoffRetryHandler.kt L76)."
rule AMK-6 "413 splits the file and both halves are sent again (FileResponseHandler.kt L43-175)."
rule AMK-7 "A 400 without drop indices (a proxy's 400) is retried (FileResponseHandler.kt L84-91)."
rule AMK-8 "429 waits a fixed TOO_MANY_REQUESTS_DELAY_IN_MS 30 s (platform/EventPipeline.kt L61)."
rule AMK-9 "Any other 4xx drops the file (utilities/http/AnalyticsResponse.kt ResponseHandler.handle L152-193)."
rule AMK-10 assumption "Offline the connectivity plugin marks the SDK offline and nothing is sent; the files wait and go when the network returns or at the next launch."
rule AMK-11 assumption "One file is sent at a time and the pipeline waits on a failing one (head-of-line)."
rule AMK-12 assumption "flushEventsOnClose (default true on Android) flushes when the app goes to the background."
rule AMK-13 "A 400 with drop indices drops the events it names and sends the rest again (utilities/FileResponseHandler.kt L43-175)."

requests screen

set retry.attempts unlimited
backoff ladder 1s,8s,32s,128s,300s
set retry.jitter ±50%

save at create
created rule AMK-1
send rule AMK-2
offline hold rule AMK-10
quit keeps saved rule AMK-10

batch up to 1000 when 30 new every 30s head-of-line rule AMK-2
batch split 413 rule AMK-6
batch names 400 rule AMK-13

on 2xx deliver rule AMK-3
on 4xx drop rejected rule AMK-9
on 400 retry rule AMK-7
on 408 retry rule AMK-4
on 429 retry wait 30s rule AMK-8
on 5xx retry rule AMK-4
on transport retry rule AMK-4
on exhausted queue rule AMK-5

resend on launch rule AMK-10
resend on network rule AMK-10

on background flush rule AMK-12
