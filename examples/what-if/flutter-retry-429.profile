# What if the Flutter SDK retried a 429 (Too Many Requests) instead of dropping
# it? Every other answer does what the built-in Flutter profile does.
# Try it: outbox run examples/what-if/flutter-retry-429.outbox
profile flutter-retry-429
base flutter
title "Flutter that retries 429 (what-if)"

rule FLR-1 "A 429 answer is retried after retry.delays, up to retry.attempts attempts in this run; every other 4xx is still dropped (FL-3)."
rule FLR-2 "When the last attempt of a 429 fails, the request is saved and resent at the next launch (FL-4)."

set retry.attempts 3
set retry.delays 5s,10s

on 429 retry rule FLR-1
on exhausted queue rule FLR-2
