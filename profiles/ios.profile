# Positive User (UserCom) SDK on iOS: the rules IOS-1 to IOS-7 of shared/spec/delivery-rules.md.
# Built into outbox; `outbox profiles --source ios` prints this file.
profile ios
title "Positive User (UserCom) SDK on iOS"

rule IOS-1 "Pings, events, screen and product events and notification reports go into one queue saved on the device."
rule IOS-2 assumption "No head-of-line blocking: every request whose time has come goes out at once, oldest first."
rule IOS-3 "2xx: delivered, completion true; 4xx: dropped (rejected), completion false; 5xx or transport error: retried."
rule IOS-4 "Up to retry.attempts attempts, waiting retry.delays; when the last fails: dropped (exhausted), completion false."
rule IOS-5 "Offline: nothing is sent, nothing counts as an attempt; requests wait queued and go out when the network returns."
rule IOS-6 "A request saved when the app closes goes out at once after the next launch, budget reset, completion never called."
rule IOS-7 assumption "logout sends logout, token-removal and anonymous-ping outside the queue; never saved or retried (not-saved)."

# What the app can call besides launch, quit and track.
requests ping screen product notification logout
# IOS-7: the three logout requests go outside the queue.
direct logout token-removal anonymous-ping rule IOS-7

set retry.attempts 4
set retry.delays 30s,1m,2m

# Saved into the queue when made (IOS-1), sent at once (IOS-2).
save at create
created rule IOS-1
send rule IOS-2
# IOS-5: offline, nothing is sent; requests wait queued.
offline hold rule IOS-5
quit keeps saved rule IOS-6

on 2xx deliver rule IOS-3
on transport retry rule IOS-4
on 5xx retry rule IOS-4
on 4xx drop rejected rule IOS-3
on exhausted drop exhausted rule IOS-4

resend on launch rule IOS-6
resend on network rule IOS-5

report completion rule IOS-6

say completion.delivered "completion({label}): true"
say completion.dropped "completion({label}): false ({reason} {outcome})"
say completion.exhausted "completion({label}): false ({outcome} on the last of {attempts} attempts)"
say completion.lost "{label}: no completion handler to call (it survived a quit, IOS-6)"
say legend.completion "iOS completion"
say resend.launch "launch: {count} saved go out (IOS-6)"
say resend.network "queue restarts: {count} queued go out (IOS-5)"
say waits.launch "offline at launch: {count} saved wait (IOS-5)"
