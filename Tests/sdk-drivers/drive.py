#!/usr/bin/env python3
"""Drives one real Python analytics SDK against a local server (issue 25).

    drive.py SDK URL [--events N] [--names a,b,c] [--flush-wait S] [--max-retries N]
             [--compress default|gzip|none]

SDK is one of: posthog, posthog-v1, segment, rudder, amplitude, mixpanel,
mixpanel-buffered, sentry. URL is a base such as http://127.0.0.1:PORT; each
SDK appends its own path (PostHog /batch/ or /i/v1/analytics/events, Segment
and Rudder /v1/batch, Amplitude /2/httpapi, Mixpanel /track, Sentry
/api/1/envelope/). For amplitude and mixpanel a URL that already has a path
is used as the endpoint as is.

It tracks N events (default 3) named from --names (cycling; default
e0..eN-1), event i from user "user-i", then flushes and shuts the SDK down
so everything is sent, waiting at most --flush-wait seconds (default 10) for
that. Then it prints one JSON line per event:

    {"sdk": SDK, "name": NAME, "id": EVENT-ID}

The id is set by the driver wherever the SDK lets the caller choose it
(PostHog uuid, Segment/Rudder messageId, Amplitude insert_id, Mixpanel
$insert_id, Sentry event_id): uuid5 of "SDK:NAME:i", so a test can match
the events it sees on the wire. --max-retries (default 2) is passed to the
SDK's retry setting, and backoff/flush intervals are made short: this is a
test harness, not a production configuration. --compress sets the SDK's
body compression where it has a switch (PostHog gzip / capture_compression,
Segment and Rudder gzip, Sentry transport_compression_level); default
leaves the SDK's own default. SDK logs go to stderr.
Exit status: 0 if flush/shutdown finished in time, 2 if it was cut off.
"""
import argparse
import json
import logging
import os
import sys
import threading
import time
import uuid
from urllib.parse import urlsplit

NAMESPACE = uuid.UUID("6f2b0a52-25a1-4c8e-9d0e-0000000000a5")  # any fixed UUID
SDKS = ("posthog", "posthog-v1", "segment", "rudder", "amplitude", "mixpanel",
        "mixpanel-buffered", "sentry")


def event_id(sdk, name, i):
    return uuid.uuid5(NAMESPACE, f"{sdk}:{name}:{i}")


def endpoint(url, default_path):
    """URL as is when it has a path, else URL + default_path."""
    if urlsplit(url).path not in ("", "/"):
        return url
    return url.rstrip("/") + default_path


# Each driver takes (sdk, url, events, args), where events is a list of
# (name, i, uuid); it sends them and returns (ids, finish): ids are the event
# ids put in the payload (or None), finish() flushes and shuts down (run with
# a deadline by main).

def drive_posthog(sdk, url, events, args):
    from posthog import Posthog
    extra = {}
    if args.compress != "default":
        if sdk == "posthog-v1":
            extra["capture_compression"] = args.compress
        else:
            extra["gzip"] = args.compress == "gzip"
    client = Posthog(
        "phc_outbox_test",
        **extra,
        host=url,
        capture_mode="v1" if sdk == "posthog-v1" else "v0",
        flush_at=max(len(events), 1),
        flush_interval=0.2,
        max_retries=args.max_retries,  # backoff min(2^attempt, 30) s: 1 s, 2 s, ...
        timeout=5,
        enable_local_evaluation=False,  # no flag polling (needs personal_api_key anyway)
    )
    ids = []
    for name, i, u in events:
        got = client.capture(name, distinct_id=f"user-{i}", uuid=str(u),
                             properties={"i": i})
        ids.append(got or str(u))

    def finish():
        client.flush(timeout_seconds=args.flush_wait)
        client.shutdown()
    return ids, finish


def drive_segment_like(sdk, url, events, args):
    extra = {} if args.compress == "default" else {"gzip": args.compress == "gzip"}
    if sdk == "segment":
        from segment.analytics import Client
        client = Client(
            write_key="wk_outbox_test",
            host=url,
            max_retries=args.max_retries,  # first retry immediate, then 0.5 s * 2^(n-2)
            upload_interval=0.2,
            upload_size=max(len(events), 1),
            timeout=5,
            max_total_backoff_duration=max(int(args.flush_wait), 1),
            max_rate_limit_duration=max(int(args.flush_wait), 1),
            **extra,
        )
    else:
        from rudderstack.analytics import Client
        client = Client(
            write_key="wk_outbox_test",
            host=url,  # what rudderstack.analytics.dataPlaneUrl sets
            max_retries=args.max_retries,  # backoff.expo, full jitter U[0, 2^n] s
            upload_interval=0.2,
            upload_size=max(len(events), 1),
            timeout=5,
            **extra,
        )
    ids = []
    for name, i, u in events:
        client.track(user_id=f"user-{i}", event=name, properties={"i": i},
                     message_id=str(u))
        ids.append(str(u))

    def finish():
        client.flush()
        client.join()
    return ids, finish


def drive_amplitude(sdk, url, events, args):
    from amplitude import Amplitude, BaseEvent, Config
    pending = {str(u) for _, _, u in events}
    lock = threading.Condition()

    def callback(event, code, message):  # called once per event: delivered or given up
        print(f"drive.py: amplitude: {event.event_type} {event.insert_id}: {code} {message}",
              file=sys.stderr)
        with lock:
            pending.discard(event.insert_id)
            lock.notify_all()

    config = Config(
        server_url=endpoint(url, "/2/httpapi"),
        flush_queue_size=max(len(events), 1),
        flush_interval_millis=200,
        # Per event; the retry delay is 100 ms * 2^((r-1)//2), so retries are quick.
        flush_max_retries=args.max_retries + 1,
        callback=callback,
    )
    client = Amplitude("amp_outbox_test", configuration=config)
    ids = []
    for name, i, u in events:
        client.track(BaseEvent(event_type=name, user_id=f"user-{i:05d}",
                               insert_id=str(u), event_properties={"i": i}))
        ids.append(str(u))

    def finish():
        client.flush()
        # shutdown() flushes once and stops, dropping events queued for a
        # retry, so wait first until every event has had its final callback.
        deadline = time.monotonic() + args.flush_wait
        with lock:
            while pending and time.monotonic() < deadline:
                lock.wait(0.1)
            if pending:
                print(f"drive.py: amplitude: no outcome for {sorted(pending)}", file=sys.stderr)
        client.shutdown()
    return ids, finish


def drive_mixpanel(sdk, url, events, args):
    from mixpanel import BufferedConsumer, Consumer, Mixpanel
    options = dict(
        events_url=endpoint(url, "/track"),
        request_timeout=5,
        # Note: mixpanel mounts its urllib3 Retry adapter for https:// only, so
        # against http:// these are not used and nothing is retried.
        retry_limit=args.max_retries,
        retry_backoff_factor=0.1,
    )
    if sdk == "mixpanel-buffered":
        consumer = BufferedConsumer(max_size=max(len(events), 1), **options)
    else:
        consumer = Consumer(**options)  # one request per event, sent in track()
    mp = Mixpanel("mp_outbox_test", consumer=consumer)
    ids = []
    for name, i, u in events:
        try:
            mp.track(f"user-{i}", name, {"$insert_id": u.hex, "i": i})
        except Exception as e:  # MixpanelException; TypeError if the answer is not an object
            print(f"drive.py: mixpanel: {type(e).__name__}: {e}", file=sys.stderr)
        ids.append(u.hex)

    def finish():
        if isinstance(consumer, BufferedConsumer):
            try:
                consumer.flush()
            except Exception as e:
                print(f"drive.py: mixpanel: {type(e).__name__}: {e}", file=sys.stderr)
    return ids, finish


def drive_sentry(sdk, url, events, args):
    import sentry_sdk
    parts = urlsplit(url)
    dsn = f"{parts.scheme}://public@{parts.netloc}/1"
    # Sentry's transport does not retry; max_retries has nothing to set.
    experiments = {}
    if args.compress != "default":
        experiments = {"transport_compression_algo": "gzip",
                       "transport_compression_level": 0 if args.compress == "none" else 9}
    # release: fixed, or the SDK takes the current git commit (differs per checkout).
    sentry_sdk.init(dsn=dsn, default_integrations=False, shutdown_timeout=args.flush_wait,
                    release="outbox-sdk-driver", _experiments=experiments)
    ids = []
    for name, i, u in events:
        got = sentry_sdk.capture_event({
            "event_id": u.hex,
            "message": name,
            "level": "info",
            "user": {"id": f"user-{i}"},
            "extra": {"i": i},
        })
        ids.append(got or u.hex)

    def finish():
        sentry_sdk.flush(timeout=args.flush_wait)
        client = sentry_sdk.get_client()
        client.close(timeout=args.flush_wait)
    return ids, finish


DRIVERS = {
    "posthog": drive_posthog, "posthog-v1": drive_posthog,
    "segment": drive_segment_like, "rudder": drive_segment_like,
    "amplitude": drive_amplitude,
    "mixpanel": drive_mixpanel, "mixpanel-buffered": drive_mixpanel,
    "sentry": drive_sentry,
}


def main():
    ap = argparse.ArgumentParser(description="Drive a Python analytics SDK at URL.")
    ap.add_argument("sdk", choices=SDKS)
    ap.add_argument("url")
    ap.add_argument("--events", type=int, default=3)
    ap.add_argument("--names", default=None, help="comma-separated event names (cycled)")
    ap.add_argument("--flush-wait", type=float, default=10.0)
    ap.add_argument("--max-retries", type=int, default=2)
    ap.add_argument("--compress", choices=("default", "gzip", "none"), default="default")
    args = ap.parse_args()

    logging.basicConfig(stream=sys.stderr, level=os.environ.get("DRIVE_LOG", "WARNING"))
    names = [n for n in (args.names or "").split(",") if n] or \
        [f"e{i}" for i in range(args.events)]
    events = [(names[i % len(names)], i, event_id(args.sdk, names[i % len(names)], i))
              for i in range(args.events)]

    ids, finish = DRIVERS[args.sdk](args.sdk, args.url, events, args)

    errors = []

    def run():
        try:
            finish()
        except Exception as e:  # report, still print the events
            errors.append(e)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(args.flush_wait + 2)
    cut = t.is_alive()
    if cut:
        print(f"drive.py: {args.sdk}: flush/shutdown still running after "
              f"{args.flush_wait + 2:g} s; cut off", file=sys.stderr)
    for e in errors:
        print(f"drive.py: {args.sdk}: {type(e).__name__}: {e}", file=sys.stderr)
    for (name, _, _), got in zip(events, ids):
        print(json.dumps({"sdk": args.sdk, "name": name, "id": got}))
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit: skip the SDKs' atexit joins, which could block past the deadline.
    os._exit(2 if cut else 0)


if __name__ == "__main__":
    main()
