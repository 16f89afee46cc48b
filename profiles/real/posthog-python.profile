# PostHog's Python SDK, posthog 7.91.1 from PyPI, read from its source:
# shared/reference/real-sdks.md, section A.3. A server-side SDK: its queue is in
# memory. Every rule cites the file and lines it was read from; an assumption
# rule says what the source leaves open. `outbox profiles --source posthog-python` prints this file.
profile posthog-python
title "PostHog Python SDK 7.91.1 (posthog on PyPI)"

rule PHP-1 "capture() puts the event on an in-memory queue; nothing is saved (posthog/client.py)."
rule PHP-2 "At most max_queue_size 10000 events wait; when full the new one is refused: put(block=False) raises Full and capture returns False (client.py L988-998)."
rule PHP-3 "The consumer sends batches of flush_at 100, or what waits every flush_interval 5 s (client.py L1210-1216)."
rule PHP-4 "A 2xx ends the batch (posthog/consumer.py _send L323-368)."
rule PHP-5 "Every answer but a 4xx other than 408 and 429 is retried, network errors too (consumer.py _send L323-368), after max(min(2^a, 30), min(Retry-After, 30)) s (capture_v1.py _backoff L400-415, _MAX_BACKOFF_SECONDS L92)."
rule PHP-6 "A 4xx other than 408 and 429 drops the batch (consumer.py _send L323-368)."
rule PHP-7 "After max_retries 3 retries the batch is dropped (client.py L1210-1216)."
rule PHP-8 assumption "The consumer thread sends one batch at a time and waits out its retries (head-of-line); what waits in memory is lost when the process ends."

set retry.attempts 4
backoff exponential 1s x2 cap 30s

save never rule PHP-8
created rule PHP-1
send rule PHP-3
offline fail
quit keeps saved rule PHP-8

keep at most 10000 refuse rule PHP-2
batch up to 100 every 5s head-of-line rule PHP-3

on 2xx deliver rule PHP-4
on 4xx drop rejected rule PHP-6
on 408 retry rule PHP-5
on 429 retry rule PHP-5
on 1xx retry rule PHP-5
on 3xx retry rule PHP-5
on 5xx retry rule PHP-5
on transport retry rule PHP-5
on exhausted drop exhausted rule PHP-7
retry-after floor cap 30s rule PHP-5
