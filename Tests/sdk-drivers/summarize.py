#!/usr/bin/env python3
"""One line per captured request in Tests/Fixtures/wire/*.jsonl (stdlib only).

    summarize.py FILE.jsonl...

Prints time, gap since the previous request, connection, method, path, the
headers that matter, and per request the event names/ids found in the body.
"""
import json
import sys
from urllib.parse import parse_qs

SKIP = {"host", "accept", "accept-encoding", "connection", "content-length"}


def events(path, text):
    """(name, id) pairs found in a body, for the shapes the SDKs send."""
    if text is None:
        return []
    p = path.split("?")[0].rstrip("/")
    if p.endswith("/envelope"):
        lines = text.split("\n")
        out = []
        for k in range(1, len(lines) - 1, 2):
            try:
                h, item = json.loads(lines[k]), json.loads(lines[k + 1])
            except ValueError:
                continue
            out.append((h.get("type"), item.get("event_id") or item.get("timestamp")))
        return out
    if p == "/track" or p == "/engage":
        data = parse_qs(text).get("data", [""])[0]
        doc = json.loads(data)
        doc = doc if isinstance(doc, list) else [doc]
        return [(e.get("event"), e.get("properties", {}).get("$insert_id")) for e in doc]
    doc = json.loads(text)
    for key, name, ident in (("batch", "event", None), ("events", "event_type", "insert_id")):
        if key in doc:
            out = []
            for e in doc[key]:
                n = e.get(name) or e.get("event")
                i = e.get(ident) if ident else (e.get("uuid") or e.get("messageId"))
                out.append((n, i))
            return out
    return []


for f in sys.argv[1:]:
    print(f"== {f}")
    prev = None
    for line in open(f):
        r = json.loads(line)
        if "driver" in r:
            print("   driver:", [(d["name"], d["id"]) for d in r["driver"]], "exit", r["driver_exit"])
            continue
        gap = "" if prev is None else f"+{r['t'] - prev:.3f}"
        prev = r["t"]
        hs = {k: v for k, v in r["headers"] if k.lower() not in SKIP}
        ev = events(r["path"], r["body"])
        print(f"  {r['t']:7.3f} {gap:>8} c{r['conn']} {r['method']} {r['path']} -> {r['status']}")
        print(f"      {hs}")
        print(f"      events: {ev}")
