# What if iOS throttled itself as the Google SRE book's clients do ("Handling
# Overload")? Over the last 2 minutes it counts its requests and the backend's
# accepts, and before each send rejects the attempt on the device with
# probability max(0, (requests - 2 x accepts) / (requests + 1)): a rejected
# attempt never reaches the backend and waits the backoff as an offline one.
#
# Try it: outbox run examples/what-if/ios-throttle.outbox
#         outbox compare examples/what-if/ios-throttle.outbox
profile ios-throttle
base ios
title "iOS with client-side adaptive throttling (what-if)"

rule IOST-1 "Before a send: rejected on the device with chance max(0, (requests - 2 accepts) / (requests + 1)) over the last 2 min (accepts: any answer but 5xx, 429); retried as a transport error (IOS-4)."

throttle k 2 window 2m rule IOST-1
