# Positive User (UserCom) SDK on Flutter: the rules FL-1 to FL-5 of shared/spec/delivery-rules.md.
# Built into outbox; `outbox profiles --source flutter` prints this file.
profile flutter
title "Positive User (UserCom) SDK on Flutter"

rule FL-1 "Each request is sent at once."
rule FL-2 "A request that fails with a transport error is saved; an unsaved one on the wire when the app closes is lost."
rule FL-3 "Server answers are final: 4xx drops it (rejected), 5xx drops it (not-saved)."
rule FL-4 assumption "Saved requests are resent all at once, oldest first, at the next launch."
rule FL-5 "The app's code gets no completion."

# What the app can call besides launch, quit and track.
requests ping screen product notification logout

save on failure rule FL-2
created rule FL-1
send rule FL-1
offline fail
quit keeps saved rule FL-2

on 2xx deliver rule FL-1 when-saved FL-4
on transport queue rule FL-2
on 5xx drop not-saved rule FL-3
on 4xx drop rejected rule FL-3

resend on launch rule FL-4

say resend.launch "launch: resending {count} saved (FL-4)"
say waits.network "saved requests wait for the next launch (FL-4)"
