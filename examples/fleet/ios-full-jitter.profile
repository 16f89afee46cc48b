# The built-in iOS profile with full jitter on its own ladder: before retry n
# it waits a random 0 to 30s, 1m, 2m instead of exactly that (docs/fleet.md,
# "Stories": examples/fleet/ladder-vs-jitter.fleet).
profile ios-full-jitter
base ios
title "iOS, full jitter on its 30s, 1m, 2m ladder (what-if)"
set retry.jitter full
