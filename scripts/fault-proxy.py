#!/usr/bin/env python3
"""A small fault proxy for soak runs: a threaded HTTP/1.1 reverse proxy on loopback in front of
the sandbox that answers a share of its API calls with a 5xx while faults are on.

  python3 scripts/fault-proxy.py --listen 127.0.0.1:9001 --target 127.0.0.1:9000 [--log faults.ndjson]

Control (on the proxy's own port, never forwarded):
  curl -X POST 'http://127.0.0.1:9001/__faults?rate=0.3'   faults on: 30 % of /api/ calls
  curl -X POST 'http://127.0.0.1:9001/__faults?rate=0'     faults off
  curl http://127.0.0.1:9001/__faults                      the setting and the counts, as JSON

While on, each /api/ call is, with probability `rate`, answered by the proxy with one of
  502 Bad Gateway      - not forwarded (the backend never saw it)
  503 Service Unavailable - not forwarded
  504 Gateway Timeout  - forwarded, the backend's answer thrown away (it did see it: a lost answer)
chosen in turn. A backend that refuses connections (restarting) gets a 502 as a real proxy
gives. Each faulted call is one NDJSON line in --log (time, method, path, status, forwarded).
It adds no X-Forwarded-For, so the sandbox sees one client: 127.0.0.1, as it would see the console.
"""
import argparse
import http.client
import http.server
import json
import random
import socket
import sys
import threading
import time
import urllib.parse

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
              "transfer-encoding", "upgrade", "host", "content-length"}
FAULTS = [(502, False), (503, False), (504, True)]


class State:
    def __init__(self, target, log_path):
        self.target = target
        self.rate = 0.0
        self.lock = threading.Lock()
        self.turn = 0
        self.counts = {"forwarded": 0, "faulted": 0, "unreachable": 0, "502": 0, "503": 0, "504": 0}
        self.log = open(log_path, "a", buffering=1) if log_path else None

    def pick_fault(self):
        with self.lock:
            if self.rate <= 0 or random.random() >= self.rate:
                return None
            fault = FAULTS[self.turn % len(FAULTS)]
            self.turn += 1
            return fault

    def count(self, key):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def record(self, method, path, status, forwarded):
        self.count("faulted")
        self.count(str(status))
        if self.log:
            with self.lock:
                self.log.write(json.dumps({"time": time.time(), "method": method, "path": path, "status": status,
                                           "forwarded": forwarded}) + "\n")


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "SoakFaultProxy"

        def log_message(self, *args):
            pass

        def reply(self, status, body, content_type="application/json", headers=()):
            data = body if isinstance(body, bytes) else body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def control(self):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            if self.command == "POST" and "rate" in query:
                with state.lock:
                    state.rate = max(0.0, min(1.0, float(query["rate"][0])))
            with state.lock:
                answer = {"rate": state.rate, **state.counts}
            self.reply(200, json.dumps(answer))

        def forward(self, body):
            connection = http.client.HTTPConnection(*state.target, timeout=60)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                headers["Host"] = f"{state.target[0]}:{state.target[1]}"
                connection.request(self.command, self.path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                return response.status, response.reason, [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP], data
            finally:
                connection.close()

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if self.path.startswith("/__faults"):
                return self.control()
            fault = self.pick_fault() if self.path.startswith("/api/") else None
            if fault and not fault[1]:
                state.record(self.command, self.path, fault[0], False)
                return self.reply(fault[0], json.dumps({"detail": f"fault proxy: {fault[0]}"}))
            try:
                status, reason, headers, data = self.forward(body)
            except (ConnectionError, socket.timeout, OSError, http.client.HTTPException) as error:
                state.count("unreachable")
                return self.reply(502, json.dumps({"detail": f"fault proxy: backend unreachable ({type(error).__name__})"}))
            if fault:
                state.record(self.command, self.path, fault[0], True)
                return self.reply(fault[0], json.dumps({"detail": f"fault proxy: {fault[0]} after forwarding"}))
            state.count("forwarded")
            self.send_response(status, reason)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def pick_fault(self):
            return state.pick_fault()

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = handle_any

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", required=True, help="HOST:PORT (loopback)")
    parser.add_argument("--target", required=True, help="HOST:PORT of the sandbox")
    parser.add_argument("--log", help="NDJSON file of faulted calls")
    parser.add_argument("--rate", type=float, default=0.0, help="initial fault rate (0)")
    args = parser.parse_args()
    host, port = args.listen.rsplit(":", 1)
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("the fault proxy listens on loopback only")
    target_host, target_port = args.target.rsplit(":", 1)
    state = State((target_host, int(target_port)), args.log)
    state.rate = args.rate
    server = http.server.ThreadingHTTPServer((host, int(port)), make_handler(state))
    server.daemon_threads = True
    print(f"fault proxy on http://{host}:{port}/ -> http://{args.target}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
