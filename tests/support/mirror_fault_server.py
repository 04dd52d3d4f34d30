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
  /nostore/     everything served with Cache-Control: no-store, no-cache
  /auth401/, /auth403/  every page and file answers 401 / 403
  /htmlasjson/  pages are HTML sent as application/vnd.pypi.simple.v1+json
  /jsonashtml/  pages are PEP 691 JSON sent as text/html
  /truncated/   files (wheels and .metadata) announce their length and
                close the connection halfway
"""
import base64
import hashlib
import io
import json
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
    """An installable wheel: its RECORD lists every member's hash."""
    members = {f"{name}-1.0.dist-info/METADATA": metadata(name),
               f"{name}-1.0.dist-info/WHEEL":
                   b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join("%s,sha256=%s,%d\n" % (path, base64.urlsafe_b64encode(
        hashlib.sha256(data).digest()).rstrip(b"=").decode(), len(data))
        for path, data in members.items())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, data in members.items():
            z.writestr(path, data)
        z.writestr(f"{name}-1.0.dist-info/RECORD", record + f"{name}-1.0.dist-info/RECORD,,\n")
    return buf.getvalue()


WHEELS = {n: wheel(n) for n in ("alpha", "beta")}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, ctype="text/html", cut=False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.path.startswith("/nostore/"):
            self.send_header("Cache-Control", "no-store, no-cache")
        if cut:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if cut else body)

    def do_GET(self):
        with LOCK:
            SEEN[0] += 1
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts and parts[0] in ("auth401", "auth403"):
            return self.send(int(parts[0][4:]), b"denied")
        if len(parts) == 3 and parts[1] == "simple" and parts[2] in WHEELS:
            name = parts[2]
            fn = f"{name}-1.0-py3-none-any.whl"
            wsha = hashlib.sha256(WHEELS[name]).hexdigest()
            msha = hashlib.sha256(metadata(name)).hexdigest()
            if parts[0] == "jsonashtml":
                page = {"meta": {"api-version": "1.0"}, "name": name, "files": [
                    {"filename": fn, "url": f"/{parts[0]}/files/{fn}", "hashes": {"sha256": wsha},
                     "core-metadata": {"sha256": msha}}]}
                return self.send(200, json.dumps(page).encode())
            page = (f'<html><body><a href="/{parts[0]}/files/{fn}#sha256='
                    f'{wsha}" data-core-metadata="sha256={msha}">{fn}</a></body></html>')
            if parts[0] == "htmlasjson":
                return self.send(200, page.encode(), "application/vnd.pypi.simple.v1+json")
            return self.send(200, page.encode())
        if len(parts) == 3 and parts[1] == "files":
            fault, fn = parts[0], parts[2]
            name = fn.split("-")[0]
            if name not in WHEELS:
                return self.send(404, b"no such file")
            cut = fault == "truncated"
            if not fn.endswith(".metadata"):
                return self.send(200, WHEELS[name], "application/octet-stream", cut)
            if fault == "meta404":
                return self.send(404, b"not here")
            if fault == "meta503":
                return self.send(503, b"down")
            if fault == "metahash":
                return self.send(200, metadata(name) + b"Requires-Dist: stale\n", "text/plain")
            return self.send(200, metadata(name), "text/plain", cut)
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
