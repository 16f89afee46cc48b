# iOS with full jitter on its 30s, 1m, 2m ladder, retrying a 429 as a 5xx;
# the answer's Retry-After is not read (examples/fleet/retry-after-storm.fleet).
profile ios-jitter-429
base ios
title "iOS, full jitter, a 429 retried, Retry-After not read (what-if)"
rule J429-1 "A 429 is retried as a 5xx is (IOS-4), with full jitter on retry.delays; Retry-After is not read."
set retry.jitter full
on 429 retry rule J429-1
