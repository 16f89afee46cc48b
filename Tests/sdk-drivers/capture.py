#!/usr/bin/env python3
"""A tiny HTTP/1.1 capture server for the SDK drivers (Python stdlib only).

    capture.py OUT.jsonl [--status CODE] [--retry-after S] [--body TEXT] [--port P]

Listens on 127.0.0.1 (port 0 = any free port unless --port) and prints the
port on its first line of stdout, flushed, so a caller can read it. Every
request is appended to OUT.jsonl as one JSON object:

    {"seq": n, "t": seconds since the server started, "conn": connection number,
     "method": ..., "path": path+query, "headers": [[name, value], ...],
     "body_b64": raw body, "encoding": Content-Encoding or null,
     "body": the (inflated, if gzip/deflate) body as text when it is UTF-8,
     "status": the status answered}

Answers 200 (keep-alive, Content-Length always set) with a body each SDK
accepts, chosen by path; see answer_for(). With --status CODE every request
gets CODE instead, with a body that says the same thing (Amplitude and
Mixpanel read the body, not only the status), and --retry-after S adds a
Retry-After header. --body TEXT answers TEXT to every request instead (to
see what an SDK does with an answer it does not expect). Stops on
SIGTERM/SIGINT.
"""
import argparse
import base64
import gzip
import itertools
import json
import signal
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def inflate(raw, encoding):
    enc = (encoding or "").strip().lower()
    if enc == "gzip":
        return gzip.decompress(raw)
    if enc == "deflate":
        try:
            return zlib.decompress(raw)  # zlib-wrapped (RFC 1950), what SDKs send
        except zlib.error:
            return zlib.decompress(raw, -zlib.MAX_WBITS)  # raw deflate
    return raw


def answer_for(path, body_text):
    """The 200 body for a request, by path (what each SDK's success check reads)."""
    p = path.split("?", 1)[0].rstrip("/")
    if p.endswith("/envelope") or p.endswith("/store"):
        # Sentry: any 2xx is success; the body is not read. Relay answers {"id": ...}.
        return {"id": uuid.uuid4().hex}
    if p == "/i/v1/analytics/events":
        # PostHog capture v1: 2xx must carry a results map; an event absent from
        # it counts as accepted, so an empty map accepts the whole batch.
        return {"results": {}}
    try:
        doc = json.loads(body_text) if body_text else None
    except ValueError:
        doc = None
    if p in ("/2/httpapi", "/batch") and isinstance(doc, dict) and "events" in doc:
        # Amplitude (HTTP V2 and Batch API; PostHog's /batch/ has "batch"
        # instead): the SDK takes the outcome from the body's "code" (must be
        # 2xx), not from the HTTP status.
        n = len(doc["events"]) if isinstance(doc["events"], list) else 0
        return {"code": 200, "events_ingested": n,
                "payload_size_bytes": len(body_text),
                "server_upload_time": int(time.time() * 1000)}
    if p == "/batch":
        # PostHog v0 (/batch/): any 200 is success; PostHog answers {"status": 1}.
        return {"status": 1}
    if p in ("/track", "/engage", "/groups", "/import"):
        # Mixpanel: the body must be a JSON object with "status": 1 (it asks for
        # verbose=1); a bare `1` makes the SDK raise.
        return {"status": 1, "error": None}
    if p == "/v1/batch":
        # Segment (any 2xx) and RudderStack (exactly 200): body not read.
        return {"success": True}
    # Unknown: a union every SDK above would accept.
    return {"status": 1, "code": 200, "success": True, "results": {}}


def failure_for(status):
    reason = BaseHTTPRequestHandler.responses.get(status, ("Error",))[0]
    # "code" for Amplitude, "status"/"error" for Mixpanel, "detail" for PostHog,
    # "code"/"message" for RudderStack.
    return {"code": status, "status": 0, "error": reason, "detail": reason,
            "message": reason}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--status", type=int, default=200)
    ap.add_argument("--retry-after", default=None)
    ap.add_argument("--body", default=None)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()

    out = open(args.out, "a", encoding="utf-8")
    lock = threading.Lock()
    seq = itertools.count(1)
    conns = itertools.count(1)
    start = time.monotonic()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "capture/1"

        def setup(self):
            super().setup()
            self.conn_id = next(conns)

        def log_message(self, *a):  # quiet
            pass

        def handle_any(self):
            t = round(time.monotonic() - start, 3)
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                raw = self.rfile.read(length)
            elif "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                raw = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    raw += self.rfile.read(size)
                    self.rfile.readline()
            else:
                raw = b""
            encoding = self.headers.get("Content-Encoding")
            text = None
            try:
                text = inflate(raw, encoding).decode("utf-8")
            except Exception:
                text = None
            status = args.status
            body = answer_for(self.path, text) if status < 300 else failure_for(status)
            if args.body is not None:
                body = args.body
                data = args.body.encode()
            else:
                data = json.dumps(body).encode()
            if status in (204, 304) or status < 200:
                body, data = None, b""  # these statuses carry no body
            rec = {"seq": next(seq), "t": t, "conn": self.conn_id,
                   "method": self.command, "path": self.path,
                   "headers": [[k, v] for k, v in self.headers.items()],
                   "body_b64": base64.b64encode(raw).decode(),
                   "encoding": encoding, "body": text, "status": status,
                   "answer": body}
            with lock:
                out.write(json.dumps(rec) + "\n")
                out.flush()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if body is not None:
                self.send_header("Content-Length", str(len(data)))
            if args.retry_after is not None and status >= 300:
                self.send_header("Retry-After", args.retry_after)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_POST = do_GET = do_PUT = do_HEAD = do_DELETE = do_PATCH = handle_any

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        out.close()


if __name__ == "__main__":
    sys.exit(main())
