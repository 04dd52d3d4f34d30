#!/usr/bin/env python3
"""A misbehaving HTTP server for the index client's fault tests.

fault_server.py PORTFILE   binds 127.0.0.1:0, writes the port to PORTFILE,
serves until killed.  Paths (PROJECT is the last path component asked for):
  /flaky/simple/P/       503 for the first 2 requests of a path, then a page
  /always500/simple/P/   503 every time (Retry-After: 0)
  /missing/simple/P/     404
  /truncate/simple/P/    Content-Length 5000, 100 bytes sent, connection closed
  /stall/simple/P/       headers and 10 bytes, then silence for 60 s
  /wronglen/simple/P/    Content-Length larger than the body, then close
  /ctype/simple/P/       200 with Content-Type application/octet-stream
  /loop/simple/P/        302 to itself
  /huge/simple/P/        a 100 MB text/html page (streamed, never stored)
  /cutwheel/P            a wheel cut short: 200 without Content-Length
                         (Range ignored), half a zip, connection closed
  /count                 JSON: requests seen per path
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNTS = {}
LOCK = threading.Lock()


def page(project):
    return (f'<html><body><a href="/files/{project}-1.0-py3-none-any.whl#sha256='
            f'{"a" * 64}">{project}-1.0-py3-none-any.whl</a></body></html>').encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, ctype="text/html", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?")[0]
        with LOCK:
            COUNTS[path] = COUNTS.get(path, 0) + 1
            n = COUNTS[path]
        parts = [p for p in path.split("/") if p]
        kind = parts[0] if parts else ""
        project = parts[-1] if parts else "x"
        if kind == "count":
            with LOCK:
                return self.send(200, json.dumps(COUNTS).encode(), "application/json")
        if kind == "flaky":
            if n <= 2:
                return self.send(503, b"busy", extra=[("Retry-After", "0")])
            return self.send(200, page(project))
        if kind == "always500":
            return self.send(503, b"down", extra=[("Retry-After", "0")])
        if kind == "missing":
            return self.send(404, b"no")
        if kind in ("truncate", "wronglen"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "5000" if kind == "truncate" else str(len(page(project)) + 7))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(page(project)[:100] if kind == "truncate" else page(project))
            self.wfile.flush()
            self.close_connection = True
            return
        if kind == "stall":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(b"<html><bo")
            self.wfile.flush()
            time.sleep(60)
            self.close_connection = True
            return
        if kind == "ctype":
            return self.send(200, page(project), "application/octet-stream")
        if kind == "loop":
            self.send_response(302)
            self.send_header("Location", path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "cutwheel":
            import io
            import zipfile
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                z.writestr("cut-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: cut\nVersion: 1.0\n")
                z.writestr("cut/__init__.py", "x = 1\n" * 2000)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(buf.getvalue()[: len(buf.getvalue()) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if kind == "huge":
            size = 100 * 1024 * 1024
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b" " * 65536
            try:
                for _ in range(size // len(chunk)):
                    self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        self.send(404, b"unknown fault")


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
