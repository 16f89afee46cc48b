# Amplitude's Swift SDK at commit 17ca168 (amplitude/Amplitude-Swift, SDK_VERSION
# 1.18.6), read from its source: shared/reference/real-sdks.md, section A.2.
# Every rule cites the file and lines it was read from; an assumption rule says
# what the source leaves open. `outbox profiles --source amplitude-swift` prints this file.
profile amplitude-swift
title "Amplitude-Swift 1.18.6 (17ca168)"

rule AMS-1 "Events are written to disk event files when tracked (Sources/Amplitude/Utilities/EventPipeline.swift)."
rule AMS-2 "A flush sends what waits, when FLUSH_QUEUE_SIZE 30 events wait or every FLUSH_INTERVAL_MILLIS 30 s (Sources/Amplitude/Constants.swift L173-176)."
rule AMS-3 "A 2xx removes the file (Sources/Amplitude/Utilities/PersistentStorageResponseHandler.swift handle L40-171)."
rule AMS-4 "408, 429, 5xx and other failures keep the file ('wait for next time'); the pipeline waits min(60, 2^(failures-1)) s before the next file (EventPipeline.swift sendNextEventFile L127-149)."
rule AMS-5 "413 splits the file and both halves are sent again (PersistentStorageResponseHandler.swift splitBlock)."
rule AMS-6 "A 400 drops the events it names as invalid and re-queues the rest (PersistentStorageResponseHandler.swift L40-171)."
rule AMS-7 "After more than FLUSH_MAX_RETRIES 6 failures the SDK sets offline = true and stops; connection errors set it too (EventPipeline.swift L127-149, HttpClient.swift L43-52)."
rule AMS-8 "The connectivity plugin clears offline and calls flush() when the network returns (Plugins/NetworkConnectivityCheckerPlugin.swift L62-72)."
rule AMS-9 "maxQueuedEventCount defaults to -1: no cap (Configuration.swift L31, L83)."
rule AMS-10 assumption "A 400 that names no event (one planned for every request) is read as the invalid API key's: every event of the batch is dropped."
rule AMS-11 assumption "One file is sent at a time and the pipeline waits on a failing one (head-of-line); the files survive a quit and go at the launch's flush."
rule AMS-12 assumption "flushEventsOnClose (default true, Configuration.swift L30) flushes when the app goes to the background."

requests screen

set retry.attempts 7
backoff exponential 1s x2 cap 60s

save at create
created rule AMS-1
send rule AMS-2
offline fail
quit keeps saved rule AMS-11

batch up to 1000 when 30 new every 30s head-of-line rule AMS-2
batch split 413 rule AMS-5
batch names 400 rule AMS-6

on 2xx deliver rule AMS-3
on 4xx retry rule AMS-4
on 400 drop rejected rule AMS-10
on 5xx retry rule AMS-4
on transport retry rule AMS-7
on exhausted queue rule AMS-7

resend on launch rule AMS-11
resend on network rule AMS-8

offline self after 7 failures or transport rule AMS-7
on background flush rule AMS-12
