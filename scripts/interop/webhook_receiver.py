"""A webhook receiver written against Python's standard library only (http.server, hmac), as a
backend would write one. It verifies Tandem-Signature (t=<unix>,v1=<hex HMAC-SHA256 of "t.body">),
refuses old timestamps, answers the first --fail requests with 500, and prints one JSON line per
request: {"verified": bool, "event": <body>}. Prints "PORT <n>" first; stops when stdin closes.

usage: webhook_receiver.py SECRET [--fail N]
"""
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = sys.argv[1].encode()
FAIL = int(sys.argv[sys.argv.index("--fail") + 1]) if "--fail" in sys.argv else 0
TOLERANCE = 300
lock = threading.Lock()
seen = {"requests": 0}


def verified(header, body):
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - timestamp) > TOLERANCE:
        return False
    expected = hmac.new(SECRET, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", ""))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ok = verified(self.headers.get("Tandem-Signature", ""), body)
        with lock:
            seen["requests"] += 1
            failing = seen["requests"] <= FAIL
            print(json.dumps({"verified": ok, "status": 500 if failing else 200, "event": json.loads(body)}), flush=True)
        self.send_response(500 if failing or not ok else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
