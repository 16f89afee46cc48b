# What if iOS kept a retry budget, as Finagle, gRPC and the Google SRE book
# bound retries: a token bucket where each request's first attempt adds a fifth
# of a token (at most 5) and each retry takes a whole one? With no token the
# retry is not made and the request is dropped (retry-budget), so in an outage
# the device sends at most 1.2 times its requests, however long it lasts.
#
# Try it: outbox run examples/what-if/ios-retry-budget.outbox
#         outbox compare examples/what-if/ios-retry-budget.outbox
profile ios-retry-budget
base ios
title "iOS with a 20% retry budget (what-if)"

rule IOSB-1 "A request's first attempt adds 0.2 token (at most 5, none at launch); a retry takes 1; without a whole token the retry is not made: dropped (retry-budget), completion false."

retry-budget 20% bucket 5 rule IOSB-1
