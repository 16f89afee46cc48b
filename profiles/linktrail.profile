# LinkTrail attribution SDK: the rules LT-1 to LT-13 of shared/spec/delivery-rules.md.
# Built into outbox; `outbox profiles --source linktrail` prints this file.
profile linktrail
title "LinkTrail attribution SDK"

rule LT-1 "trackEvent while consent is denied, or undecided under requireConsent, drops the event (consent); the decision is saved."
rule LT-1a assumption "A request is saved on the device as soon as it is accepted and removed when delivered or dropped."
rule LT-2 "setConsent(false) clears the saved queue and drops every request in flight or waiting for a retry (consent)."
rule LT-3 assumption "The first launch creates the install; the gate holds it pending until consent is granted; a denial drops it."
rule LT-4 "A request is sent at once and retried after retry.delays, up to retry.attempts attempts in this run."
rule LT-5 "Transport errors, 408, 429 and 5xx are retried; after the last attempt: onError, saved in the offline queue."
rule LT-6 assumption "Any other non-2xx: onError, dropped (rejected) at once with a warning in the log, never retried."
rule LT-7 "Each request gets an idempotency key when created; a resend keeps it, so the backend never counts it twice."
rule LT-8 "The saved queue is flushed at launch, when consent is granted and after a successful send outside a flush."
rule LT-9 assumption "One flush at a time: a trigger during a flush asks for one more pass when it ends."
rule LT-10 "A flush sends nothing while the consent gate is closed and stops at once if consent is withdrawn."
rule LT-11 assumption "A flush sends saved requests oldest first, one attempt each; a retryable failure leaves it queued and ends the flush."
rule LT-12 "The offline queue survives the app closing; requests in flight or retrying turn queued; a pending install stays pending."
rule LT-13 "value and currency are optional; the backend sums revenue by currency for counted events."

# What the app can call besides launch, quit and track (the gate adds consent grant|deny).
requests none

# LT-1, LT-2, LT-3: the consent gate, with its install (a state machine, built in).
component consent-gate drop LT-1 purge LT-2 install LT-3
# LT-8 to LT-11: the flush of the offline queue (built in).
component flush start LT-8 more LT-9 stop LT-10 send LT-11
keys idempotency rule LT-7

set requireConsent true
set retry.attempts 3
set retry.delays 2s,4s

# A request is saved when accepted, then sent at once.
save at create
created rule LT-1a
send rule LT-4
offline fail
quit keeps saved rule LT-12

on 2xx deliver rule LT-4
on transport retry rule LT-4
on 5xx retry rule LT-4
on 408 retry rule LT-4
on 429 retry rule LT-4
on 4xx drop rejected rule LT-6
on exhausted queue rule LT-5

report onerror

say onerror.kept "onError: '{name}' failed ({outcome}) after {attempts} attempts; kept in the offline queue"
say onerror.dropped "onError: '{name}' {reason} ({outcome})"
say warning.dropped "[LinkTrail] [WARNING] Event '{name}' {reason} ({outcome}) — not retried."
say consent.dropped "[LinkTrail] Event '{name}' dropped: consent {consent}"
say consent.set "[LinkTrail] setConsent({granted})"
say configure "[LinkTrail] configure (consent {consent}, {required})"
say waits.network "the network returning does not flush (LT-8)"
say flush.started "flush started (LT-8: {trigger}) · {count} queued"
say flush.empty "flush (LT-8: {trigger}): nothing queued"
say flush.more "flush under way: {trigger} asks for one more pass (LT-9)"
say flush.ended "flush ended ({rule}: {end}) · sent {sent} · {count} left"
say purged "consent denied: purged {saved} from the queue · {inflight} in flight · {retrying} retrying (LT-2)"
