# What if LinkTrail gave a request 5 attempts in a run instead of 3? The delays
# stay 2s,4s (the last repeats: 2s, 4s, 4s, 4s), the rules stay LT-1 to LT-13.
# Try it: outbox run examples/what-if/linktrail-5-attempts.outbox
profile linktrail-5-attempts
base linktrail
title "LinkTrail with 5 attempts (what-if)"

set retry.attempts 5
