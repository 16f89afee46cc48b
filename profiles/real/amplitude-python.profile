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
rule AMP-6 "An event is sent at most FLUSH_MAX_RETRIES 12 times: each failure counts one retry, and a push with retry >= max_retry drops it (constants.py L50-52, storage.py push L64-70)."
rule AMP-7 "413 splits the batch (processor.py L15-67)."
rule AMP-8 "400 drops the events it names invalid and re-queues the others as a failure; one that names none (Outbox's) re-queues them all (processor.py L32-49)."
rule AMP-9 "429 re-queues the events as a failure; those its body names in throttled_events wait 30 s more, and Outbox's 429 names none (processor.py L50-64)."
rule AMP-10 assumption "Full, the buffer refuses the new event (retries are disabled above it); batches go side by side."
rule AMP-11 "A connection closed without an answer raises RemoteDisconnected, which HttpClient.post does not catch (http_client.py L125-141 catch timeout, HTTPError and URLError); it ends send() in a thread-pool future nothing reads (worker.py L78-85, L106-108): the batch is neither retried nor called back."

set retry.attempts 12
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
on 400 retry rule AMP-8
on 429 retry rule AMP-9
on 408 retry rule AMP-5
on 5xx retry rule AMP-5
on transport retry rule AMP-5
on lost drop rejected rule AMP-11
on exhausted drop exhausted rule AMP-6
