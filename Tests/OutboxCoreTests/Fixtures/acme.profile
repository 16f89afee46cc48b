# ACME analytics SDK: a made-up fifth SDK, read from this file by the tests
# (ProfileFileTests, UserProfileScreenTests) and a seed of the `profile` fuzz
# target. It is not a built-in; it uses most statements of the profile language.
profile acme
title "ACME analytics SDK (a test profile)"

rule ACME-1 "Every request is saved on the device when made and sent at once."
rule ACME-2 "5xx, 429 and transport errors are retried after retry.delays, jittered, up to retry.attempts attempts."
rule ACME-3 "Any other 4xx drops it (rejected); its completion says false."
rule ACME-4 assumption "When its last attempt fails it stays saved, queued for the network returning or the next launch."
rule ACME-5 "Offline nothing is sent: requests wait queued and go out when the network returns."
rule ACME-6 "A request saved when the app closes goes out at the next launch; its completion handler is gone."
rule ACME-7 "logout sends logout, token-removal and anonymous-ping outside the queue, never saved or retried."
rule ACME-8 "A lost answer is not retried: the request is dropped (not-saved)."

# What the app can call besides launch, quit and track.
requests ping screen logout
direct logout token-removal anonymous-ping rule ACME-7

set retry.attempts 3
set retry.delays 5s,20s
set retry.jitter equal
set latency 300ms

save at create
created rule ACME-1
send rule ACME-1
offline hold rule ACME-5
quit keeps saved rule ACME-6

on 2xx deliver rule ACME-1
on transport retry rule ACME-2
on 5xx retry rule ACME-2
on 429 retry rule ACME-2
on 4xx drop rejected rule ACME-3
on lost drop not-saved rule ACME-8
on exhausted queue rule ACME-4

resend on launch rule ACME-6
resend on network rule ACME-5

report completion rule ACME-6

say completion.delivered "ACME: {label} delivered"
say completion.dropped "ACME: {label} {reason} ({outcome})"
say resend.network "ACME: network back, {count} queued go out (ACME-5)"
say resend.launch "ACME: launch, {count} saved go out (ACME-6)"
