# RudderStack's iOS SDK v1 (Objective-C) at commit dcf152d (rudderlabs/rudder-sdk-ios,
# 2024-12-10), read from its source: shared/reference/real-sdks.md, section A.2.
# Every rule cites the file and lines it was read from; an assumption rule says
# what the source leaves open. `outbox profiles --source rudder-ios-v1` prints this file.
profile rudder-ios-v1
title "RudderStack iOS SDK v1 dcf152d"

rule RUD1-1 "Events are saved to SQLite when tracked (Sources/Classes/RSDBPersistentManager.m)."
rule RUD1-2 "The processor uploads what waits when RSFlushQueueSize 30 events wait or every RSSleepTimeout 10 s (Sources/Classes/RSConstants.m L15-17, RSCloudModeManager.m L35-88)."
rule RUD1-3 "A 200 deletes the uploaded rows (Sources/Classes/RSCloudModeManager.m L35-88)."
rule RUD1-4 "NETWORK_ERROR (any answer but 200, 400, 404 and a wrong write key) waits min(3 x 2^a + U[0, 3 x 2^a], 300) s and retries, for ever (Sources/Classes/RSExponentialBackOff.m nextDelay L37-51)."
rule RUD1-5 "The attempt counter resets to 0 when the 300 s cap is hit: a sawtooth (RSExponentialBackOff.m L37-51)."
rule RUD1-6 "400 and 404 are retried every 1 s and never dropped (RSCloudModeManager.m L35-88, the else branch)."
rule RUD1-7 "At most RSDBCountThreshold 10000 rows are kept; the oldest are deleted each loop (RSDBPersistentManager.m clearOldEventsWithThreshold L437-447)."
rule RUD1-8 "Offline (NSURLErrorNotConnectedToInternet) the completion handler never signals the semaphore and the caller waits DISPATCH_TIME_FOREVER: the upload thread blocks and nothing more is uploaded by this process (RSNetworkManager.m L68-100; upstream issue #616, fixed by #617 after this commit)."
rule RUD1-9 assumption "The rows survive a quit; a new process starts a new upload thread, so the next launch sends again."
rule RUD1-10 assumption "A batch holds at most 30 events (RSFlushQueueSize; MAX_BATCH_SIZE is not read here), one upload at a time (head-of-line)."

requests screen

set retry.attempts unlimited
backoff exponential 3s x2 cap 5m
backoff reset at cap
set retry.jitter +100%

save at create
created rule RUD1-1
send rule RUD1-2
offline fail
quit keeps saved rule RUD1-9

keep at most 10000 drop oldest rule RUD1-7
batch up to 30 every 10s head-of-line rule RUD1-10

on 2xx deliver rule RUD1-3
on 4xx retry rule RUD1-4
on 400 retry wait 1s rule RUD1-6
on 404 retry wait 1s rule RUD1-6
on 5xx retry rule RUD1-4
on transport retry rule RUD1-4
on offline stall rule RUD1-8
on exhausted queue rule RUD1-4

resend on launch rule RUD1-9
