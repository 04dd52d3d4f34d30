#!/usr/bin/env python3
"""A broken mirror for the index client's mirror fault tests.

mirror_fault_server.py PORTFILE   binds 127.0.0.1:0, writes the port to
PORTFILE, and serves until 300 requests or 120 seconds, whichever comes
first (it stops by itself).  Each fault is an index of its own,
/FAULT/simple/P/, listing P 1.0's wheel (alpha needs beta) with a
data-core-metadata hash; the wheels are served correctly under /files/.
  /meta404/     the advertised .metadata files answer 404
  /meta503/     they answer 503
  /metahash/    they answer 200 with other bytes than the page's hash
  /ok/          they are served correctly
"""
import hashlib
import io
import sys
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_REQUESTS, MAX_SECONDS = 300, 120
SEEN = [0]
LOCK = threading.Lock()


def metadata(name):
    reqs = "Requires-Dist: beta\n" if name == "alpha" else ""
    return f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{reqs}".encode()


def wheel(name):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(f"{name}-1.0.dist-info/METADATA", metadata(name))
        z.writestr(f"{name}-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{name}-1.0.dist-info/RECORD", "")
    return buf.getvalue()


WHEELS = {n: wheel(n) for n in ("alpha", "beta")}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, ctype="text/html"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with LOCK:
            SEEN[0] += 1
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if len(parts) == 3 and parts[1] == "simple" and parts[2] in WHEELS:
            name = parts[2]
            fn = f"{name}-1.0-py3-none-any.whl"
            page = (f'<html><body><a href="/{parts[0]}/files/{fn}#sha256='
                    f'{hashlib.sha256(WHEELS[name]).hexdigest()}" data-core-metadata="sha256='
                    f'{hashlib.sha256(metadata(name)).hexdigest()}">{fn}</a></body></html>')
            return self.send(200, page.encode())
        if len(parts) == 3 and parts[1] == "files":
            fault, fn = parts[0], parts[2]
            name = fn.split("-")[0]
            if name not in WHEELS:
                return self.send(404, b"no such file")
            if not fn.endswith(".metadata"):
                return self.send(200, WHEELS[name], "application/octet-stream")
            if fault == "meta404":
                return self.send(404, b"not here")
            if fault == "meta503":
                return self.send(503, b"down")
            if fault == "metahash":
                return self.send(200, metadata(name) + b"Requires-Dist: stale\n", "text/plain")
            return self.send(200, metadata(name), "text/plain")
        self.send(404, b"unknown")


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    start = time.time()
    while time.time() - start < MAX_SECONDS and SEEN[0] < MAX_REQUESTS:
        time.sleep(0.1)
    srv.shutdown()


if __name__ == "__main__":
    main()
