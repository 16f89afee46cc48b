# Segment's analytics-swift at commit c9a0d63 (segmentio/analytics-swift,
# 2026-07-23) in its default ("legacy") mode, read from its source:
# shared/reference/real-sdks.md, section A.2. Every rule cites the file and
# lines it was read from; an assumption rule says what the source leaves open.
# `outbox profiles --source segment-swift` prints this file.
profile segment-swift
title "Segment analytics-swift c9a0d63 (default mode)"

rule SEG-1 "Events are written to disk files when tracked (Sources/Segment/Utilities/Storage/Storage.swift)."
rule SEG-2 "A flush uploads what waits, when flushAt 20 events wait or every flushInterval 30 s (Sources/Segment/Configuration.swift L113-114)."
rule SEG-3 "A 2xx deletes the uploaded batch (Sources/Segment/Utilities/Networking/HTTPClient.swift)."
rule SEG-4 "Only a 400 drops the batch: shouldDropBatch returns code == 400 without a retry state machine (HTTPClient.swift L244-247)."
rule SEG-5 "Every other answer (5xx, 429, other 4xx, network errors) keeps the batch for the next flush, with no backoff and no attempt limit (HTTPClient.swift L244-247)."
rule SEG-6 "No cap on the disk files (Storage.swift)."
rule SEG-7 assumption "A file holds up to 475 KB (Storage.swift L14 MAXFILESIZE): a batch takes events while their bytes fit; an event is about 1 KB (request.size) and its attributes."
rule SEG-8 assumption "Offline an upload is still tried and fails as a network error, so the batch is kept (SEG-5); the files survive a quit and go at the next flush after the launch."
rule SEG-9 "Background: enterBackground() flushes and the interval timer is suspended (Sources/Segment/Plugins/SegmentDestination.swift enterBackground L113-115, Utilities/Policies/IntervalBasedFlushPolicy.swift L64-67)."
rule SEG-10 assumption "Each upload runs in a beginBackgroundTask that is cancelled on expiry (Plugins/Platforms/iOS/iOSLifecycleMonitor.swift L190-206); iOS gives it about 30 s."

requests screen

save at create
created rule SEG-1
send rule SEG-2
offline fail
quit keeps saved rule SEG-8

set request.size 1KB
batch up to 10000 and 475KB when 20 new every 30s rule SEG-2

on 2xx deliver rule SEG-3
on 4xx queue rule SEG-5
on 400 drop rejected rule SEG-4
on 5xx queue rule SEG-5
on transport queue rule SEG-5

on background flush rule SEG-9
background limit 30s rule SEG-10
