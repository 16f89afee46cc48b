# Sentry's Python SDK, sentry-sdk 2.75.0 from PyPI, read from its source:
# shared/reference/real-sdks.md, section A.3. A server-side SDK: its transport
# queue is in memory. Every rule cites the file and lines it was read from; an
# assumption rule says what the source leaves open. `outbox profiles --source sentry-python` prints this file.
profile sentry-python
title "Sentry Python SDK 2.75.0 (sentry-sdk on PyPI)"

rule SNP-1 "capture_event() puts the envelope on the transport's in-memory queue, transport_queue_size 100 (sentry_sdk/consts.py L97)."
rule SNP-2 "A 2xx delivers it (sentry_sdk/transport.py L381-413)."
rule SNP-3 "No retry: a 413 or any other non-2xx answer records the envelope as lost (transport.py L381-413)."
rule SNP-4 assumption "A network error loses the envelope too; full, the queue refuses the new envelope; nothing survives the process; one envelope at a time."

call capture NAME makes error key a crash "capture_exception(): an error envelope (Sentry)"

save never rule SNP-4
created rule SNP-1
send rule SNP-1
offline fail
quit keeps saved rule SNP-4

keep at most 100 refuse rule SNP-4
batch up to 1 head-of-line rule SNP-1

on 2xx deliver rule SNP-2
on 4xx drop rejected rule SNP-3
on 5xx drop rejected rule SNP-3
on transport drop rejected rule SNP-4
