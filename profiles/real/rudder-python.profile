# RudderStack's Python SDK, rudder-sdk-python 2.1.9 from PyPI, read from its
# source: shared/reference/real-sdks.md, section A.3. A server-side SDK: its queue
# is in memory. Every rule cites the file and lines it was read from; an
# assumption rule says what the source leaves open. `outbox profiles --source rudder-python` prints this file.
profile rudder-python
title "RudderStack Python SDK 2.1.9 (rudder-sdk-python on PyPI)"

rule RDP-1 "track() puts the event on an in-memory queue; nothing is saved (rudderstack/analytics/client.py)."
rule RDP-2 "At most max_queue_size 10000 events wait; a new one is rejected when full (client.py L29-36)."
rule RDP-3 "The consumer uploads what waits every upload_interval 0.5 s (client.py L29-36)."
rule RDP-4 "A 2xx ends the batch (rudderstack/analytics/consumer.py)."
rule RDP-5 "Failures are retried with backoff.on_exception(backoff.expo, max_tries=11), the backoff library's full jitter: U[0, 2^n] s, uncapped (consumer.py L111-132)."
rule RDP-6 "The giveup: a 4xx other than 429 drops the batch (consumer.py L111-132)."
rule RDP-7 "A 400 whose JSON body lacks code and message is retried: the giveup reads them from the body (consumer.py L111-132)."
rule RDP-8 assumption "An Outbox 400 carries no JSON body, so it is RDP-7's quirk: retried; other 4xx bodies are read as naming an error."
rule RDP-9 assumption "The consumer sends one batch of up to 100 (upload_size, as the Segment library it forks) at a time and waits out its retries (head-of-line); what waits in memory is lost when the process ends."

set retry.attempts 11
backoff exponential 1s x2
set retry.jitter full

save never rule RDP-9
created rule RDP-1
send rule RDP-3
offline fail
quit keeps saved rule RDP-9

keep at most 10000 refuse rule RDP-2
batch up to 100 every 0.5s head-of-line rule RDP-3

on 2xx deliver rule RDP-4
on 4xx drop rejected rule RDP-6
on 400 retry rule RDP-8
on 429 retry rule RDP-5
on 1xx retry rule RDP-5
on 3xx retry rule RDP-5
on 5xx retry rule RDP-5
on transport retry rule RDP-5
on exhausted drop exhausted rule RDP-5
