# Mixpanel's Python SDK, mixpanel 5.4.1 from PyPI, read from its source:
# shared/reference/real-sdks.md, section A.3. A server-side SDK with no queue:
# each call sends at once. Every rule cites the file and lines it was read from;
# an assumption rule says what the source leaves open. `outbox profiles --source mixpanel-python` prints this file.
profile mixpanel-python
title "Mixpanel Python SDK 5.4.1 (mixpanel on PyPI)"

rule MPP-1 "track() sends at once through the synchronous Consumer: no queue, nothing saved (mixpanel/__init__.py)."
rule MPP-2 "A 2xx delivers it (mixpanel/__init__.py, the synchronous Consumer)."
rule MPP-3 "urllib3 Retry(total=4, backoff_factor=0.25, status_forcelist 500-599, allowed_methods POST) retries 5xx and connection errors, waiting 0, 0.5, 1 and 2 s (__init__.py L725-763)."
rule MPP-4 "Any other answer fails the call: the request is dropped and the app's code gets the exception (mixpanel/__init__.py, the synchronous Consumer raises)."
rule MPP-5 "On a 503 that carries Retry-After, urllib3 sleeps Retry-After instead of its backoff (urllib3 respects it for 413, 429 and 503)."
rule MPP-6 assumption "What a call did not send is lost when the process ends; 413 and 429 are not in status_forcelist, so they are not retried."

requests screen

set retry.attempts 5
backoff ladder 0s,0.5s,1s,2s

save never rule MPP-6
created rule MPP-1
send rule MPP-1
offline fail
quit keeps saved rule MPP-6

on 2xx deliver rule MPP-2
on 4xx drop rejected rule MPP-4
on 5xx retry rule MPP-3
on transport retry rule MPP-3
on exhausted drop exhausted rule MPP-3
retry-after replace on 503 rule MPP-5
report onerror
