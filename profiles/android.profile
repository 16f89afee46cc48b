# Positive User (UserCom) SDK on Android: the rules AND-1 to AND-6 of shared/spec/delivery-rules.md.
# Built into outbox; `outbox profiles --source android` prints this file.
profile android
title "Positive User (UserCom) SDK on Android"

rule AND-1 "Each request is sent at once; there is no queue for the first attempt."
rule AND-2 "A failed event, screen, product, notification or logout event is saved; pings and the other logout requests are not."
rule AND-3 "Every getInstance() resends every saved request not on the wire, oldest first, with no attempt limit; launch calls it."
rule AND-4 "A rejected (4xx) request is never dropped: it stays saved and is resent on every getInstance()."
rule AND-5 "An attempt while offline fails as a transport error."
rule AND-6 "The app's code gets no completion."

# What the app can call besides launch, quit and track.
requests ping screen product notification logout

# AND-2: saved only when an attempt fails, and only these kinds.
save on failure event screen product notification logout rule AND-2
created rule AND-1
send rule AND-1
offline fail
quit keeps saved rule AND-2

on 2xx deliver rule AND-1 when-saved AND-3
on offline queue rule AND-5
on transport queue rule AND-2
on 5xx queue rule AND-2
on 4xx queue rule AND-4

# AND-3: getInstance() resends every saved request; launch calls it.
resend on getinstance rule AND-3
resend on launch via getinstance rule AND-3

say resend.getinstance "UserCom.getInstance() (call): resending {count} saved"
say resend.launch "UserCom.getInstance() (launch): resending {count} saved"
say waits.network "saved requests wait for getInstance() (AND-3)"
