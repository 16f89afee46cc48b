# RudderStack's new-generation Swift SDK at commit bd6c4c6 (rudderlabs/rudder-sdk-swift,
# 2026-08-11), read from its source: shared/reference/real-sdks.md, section A.2.
# Every rule cites the file and lines it was read from; an assumption rule says
# what the source leaves open. `outbox profiles --source rudder-swift` prints this file.
profile rudder-swift
title "RudderStack Swift SDK bd6c4c6 (new generation)"

rule RUD-1 "Events are written to disk batches when tracked (Sources/RudderStackAnalytics)."
rule RUD-2 "A flush uploads what waits when flushAt 30 events wait or every flushInterval 10 s (Helpers/Utils/Constants.swift)."
rule RUD-3 "A 2xx deletes the batch (EventUploader.swift uploadBatch L74-103)."
rule RUD-4 "400 and 413 delete the batch (EventUploader.swift L136-158)."
rule RUD-5 "401 stops uploads; 404 stops them until the source is re-enabled (EventUploader.swift L136-158)."
rule RUD-6 "Everything else is retryable: the same batch is repeated, the pipeline waiting on it (EventUploader.swift uploadBatch L74-103)."
rule RUD-7 "The wait is 3 s x 2^a + U[0, 3 s x 2^a) (Policies/BackoffPolicy/ExponentialBackoffPolicy.swift L36-54, L76-77)."
rule RUD-8 "After maxAttempts 5 waits the next is coolOffPeriod 30 min, then it starts over, for ever (BackoffPolicy/BackoffPolicy.swift L41-42, BackoffPolicyHandler.waitWithBackoff)."
rule RUD-9 "429 is not special and Retry-After is never read (no Retry-After or 429 in Sources)."
rule RUD-10 assumption "A batch holds what waits up to 100 events (flushAt's top, 1-100); the batches survive a quit and go at the launch's flush."
rule RUD-11 assumption "Offline an upload fails as a network error and is retried (RUD-6)."

requests screen

set retry.attempts unlimited
backoff exponential 3s x2
backoff cool off 30m after 5
set retry.jitter +100%

save at create
created rule RUD-1
send rule RUD-2
offline fail
quit keeps saved rule RUD-10

batch up to 100 when 30 new every 10s head-of-line rule RUD-2

on 2xx deliver rule RUD-3
on 4xx retry rule RUD-6
on 400 drop rejected rule RUD-4
on 413 drop rejected rule RUD-4
on 401 stall rule RUD-5
on 404 stall rule RUD-5
on 5xx retry rule RUD-6
on transport retry rule RUD-11
on exhausted queue rule RUD-6

resend on launch rule RUD-10
