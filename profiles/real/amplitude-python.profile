# Amplitude's Python SDK, amplitude-analytics 1.3.0 from PyPI, read from its
# source: shared/reference/real-sdks.md, section A.3. A server-side SDK: its buffer
# is in memory. Every rule cites the file and lines it was read from; an
# assumption rule says what the source leaves open. `outbox profiles --source amplitude-python` prints this file.
profile amplitude-python
title "Amplitude Python SDK 1.3.0 (amplitude-analytics on PyPI)"

rule AMP-1 "track() puts the event in an in-memory buffer; nothing is saved (amplitude/storage.py)."
rule AMP-2 "The buffer holds at most MAX_BUFFER_CAPACITY 20000 events (amplitude/constants.py L50-52)."
rule AMP-3 "A flush sends batches of flush_queue_size 200, or what waits every flush_interval 10 s (constants.py L50-52)."
rule AMP-4 "A 2xx ends the batch (amplitude/processor.py L15-67)."
rule AMP-5 "Timeouts, failures and unknown answers are re-queued, each event waiting 100 x 2^((r-1)//2) ms, 3200 ms after 12 (processor.py L15-67, storage.py L118-123)."
rule AMP-6 "After FLUSH_MAX_RETRIES 12 the event is dropped (constants.py L50-52)."
rule AMP-7 "413 splits the batch (processor.py L15-67)."
rule AMP-8 "400 drops the invalid events (processor.py L15-67)."
rule AMP-9 "429 delays the throttled events by 30 s (processor.py L15-67)."
rule AMP-10 assumption "Full, the buffer refuses the new event (retries are disabled above it); a 400 that names no event (one planned for every request) drops the whole batch; batches go side by side."

set retry.attempts 13
backoff ladder 100ms,100ms,200ms,200ms,400ms,400ms,800ms,800ms,1600ms,1600ms,3200ms

save never rule AMP-10
created rule AMP-1
send rule AMP-3
offline fail
quit keeps saved rule AMP-10

keep at most 20000 refuse rule AMP-10
batch up to 200 every 10s rule AMP-3
batch split 413 rule AMP-7
batch names 400 rule AMP-8

on 2xx deliver rule AMP-4
on 4xx drop rejected rule AMP-8
on 429 retry wait 30s rule AMP-9
on 408 retry rule AMP-5
on 5xx retry rule AMP-5
on transport retry rule AMP-5
on exhausted drop exhausted rule AMP-6
