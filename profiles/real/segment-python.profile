# Segment's Python SDK, segment-analytics-python 2.4.0 from PyPI, read from its
# source: shared/reference/real-sdks.md, section A.3. A server-side SDK: its queue
# is in memory. Every rule cites the file and lines it was read from; an
# assumption rule says what the source leaves open. `outbox profiles --source segment-python` prints this file.
profile segment-python
title "Segment Python SDK 2.4.0 (segment-analytics-python on PyPI)"

rule SGP-1 "track() puts the event on an in-memory queue; nothing is saved (segment/analytics/client.py)."
rule SGP-2 "At most max_queue_size 10000 events wait; a new one is rejected when full (client.py L357-363)."
rule SGP-3 "The consumer uploads batches of upload_size 100, or what waits every upload_interval 0.5 s (client.py L34-43)."
rule SGP-4 "A 2xx ends the batch (segment/analytics/consumer.py)."
rule SGP-5 "408, 410, 429, 460 and 5xx but 501 and 505 are retried (consumer.py L281-297); the first retry at once, then min(0.5 x 2^(n-2) + U[0, 10%], 60) s (consumer.py L299-374)."
rule SGP-6 "Any other answer drops the batch (consumer.py L281-297)."
rule SGP-7 "After max_retries 10 retries, or 12 h, the batch is dropped (client.py L34-43, consumer.py L20-31)."
rule SGP-8 "Retry-After (clamped to 300 s, request.py L22) pauses the pipeline and is not counted as a retry (consumer.py L299-374); a rate-limit episode lasts at most max_rate_limit_duration 1800 s from its first pause: a wait that would end past it drops the batch (consumer.py L20-31, upload L153-190)."
rule SGP-9 assumption "The consumer thread sends one batch at a time and waits out its retries (head-of-line); what waits in memory is lost when the process ends; network errors are retried like a 5xx."
rule SGP-10 assumption "The 10% jitter is added to the whole wait and the cap bounds it."

set retry.attempts 11
backoff ladder 0s,0.5s,1s,2s,4s,8s,16s,32s,60s
backoff give up after 12h
set retry.jitter +10%

save never rule SGP-9
created rule SGP-1
send rule SGP-3
offline fail
quit keeps saved rule SGP-9

keep at most 10000 refuse rule SGP-2
batch up to 100 every 0.5s head-of-line rule SGP-3

on 2xx deliver rule SGP-4
on 4xx drop rejected rule SGP-6
on 408 retry rule SGP-5
on 410 retry rule SGP-5
on 429 retry rule SGP-5
on 460 retry rule SGP-5
on 5xx retry rule SGP-5
on 501 drop rejected rule SGP-6
on 505 drop rejected rule SGP-6
on transport retry rule SGP-9
on exhausted drop exhausted rule SGP-7
retry-after pause cap 300s within 30m rule SGP-8
