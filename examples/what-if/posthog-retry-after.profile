# What if iOS waited as PostHog's iOS SDK does: a linear backoff of 1s, 2s, 3s
# (at most 30s), retrying a 429, and the answer's Retry-After taken as a floor
# of the wait? From PostHog/posthog-ios at commit 64c7dd0.
#
# Try it: outbox run examples/what-if/posthog-retry-after.outbox
#         outbox compare examples/what-if/posthog-retry-after.outbox
profile posthog-retry-after
base ios
title "iOS with PostHog iOS's backoff and its Retry-After floor (what-if)"

rule PHR-1 "A 429 is retried as a 5xx is (PostHog iOS 64c7dd0 PostHog/QueueEndpoint+Factories.swift L10-13: 408, 429, 500, 502, 503, 504 retried)."
rule PHR-2 "A retry waits the larger of its backoff and the answer's Retry-After (PostHog/PostHogQueue.swift handleResult L149-219: max(delay, retryAfter))."
rule PHR-3 assumption "The backoff is min(n x 1s, 30s) before retry n (PostHogQueue.swift handleResult; retryDelay 1.0, maxRetryDelay 30.0 in PostHog/PostHogSDK.swift L25-26); it cites the answer's rule, IOS-4 or PHR-1."

backoff linear 1s cap 30s
on 429 retry rule PHR-1
retry-after floor rule PHR-2
