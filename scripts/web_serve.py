#!/usr/bin/env python3
"""Serves the browser build's site folder (build/web/site: exactly the site's files, what
any static host would serve) on 127.0.0.1 only, with the headers a WebAssembly page that may
use threads needs (Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy:
require-corp) and the right type for .wasm. Files go out gzip-compressed to browsers that
accept it (Content-Encoding: gzip; compressed once per file version and kept in memory), so
the first load crosses the wire at about a third of its size. Every file carries validators
(ETag and Last-Modified, with Cache-Control: no-cache): a reload asks "changed?" and gets
304 Not Modified instead of the files again.

    scripts/web_serve.py [FOLDER] [--port 8765]    then open http://127.0.0.1:8765/poslab.html
"""
import argparse
import email.utils
import functools
import gzip
import http.server
import io
import os
import sys
import threading

# What compresses well: text, WebAssembly, the preloaded data, fonts, the length lab's
# held-out text (PNG and JPEG do not; model weights a little).
COMPRESSED = (".html", ".js", ".wasm", ".data", ".ttc", ".ttf", ".json", ".css", ".txt",
              ".safetensors")
_gz_cache = {}  # path -> (mtime_ns, size, gzip bytes)
_gz_lock = threading.Lock()


def gzipped(path):
    st = os.stat(path)
    key = (st.st_mtime_ns, st.st_size)
    with _gz_lock:
        hit = _gz_cache.get(path)
        if hit and hit[0] == key:
            return hit[1]
    with open(path, "rb") as f:
        data = gzip.compress(f.read(), compresslevel=6, mtime=0)
    with _gz_lock:
        _gz_cache[path] = (key, data)
    return data


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".data": "application/octet-stream",
    }

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            return super().send_head()  # folders, 404s: the standard answers
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        gz = accepts and path.endswith(COMPRESSED)
        st = os.stat(path)
        # One version of one encoding: mtime and size, and whether it is the gzip form.
        etag = f'"{st.st_mtime_ns:x}-{st.st_size:x}{"-gz" if gz else ""}"'
        modified = email.utils.formatdate(st.st_mtime, usegmt=True)
        if self.not_modified(etag, st.st_mtime):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
            if gz:
                self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        try:
            if gz:
                body = gzipped(path)
            else:
                with open(path, "rb") as f:
                    body = f.read()
        except OSError:
            return super().send_head()
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        if gz:
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.end_headers()
        return io.BytesIO(body)

    def not_modified(self, etag, mtime):
        """The browser's copy is this version (If-None-Match wins over If-Modified-Since)."""
        match = self.headers.get("If-None-Match")
        if match is not None:
            return etag in [t.strip() for t in match.split(",")] or match.strip() == "*"
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return int(mtime) <= email.utils.parsedate_to_datetime(since).timestamp()
            except (TypeError, ValueError):
                return False
        return False

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):  # quiet unless asked: tests start it many times
        if os.environ.get("POSLAB_SERVE_LOG"):
            super().log_message(fmt, *args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default="build/web/site",
                    help="the site folder scripts/web_build.sh writes (default build/web/site)")
    ap.add_argument("--port", type=int, default=8765, help="0 = any free port (printed)")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.folder, "poslab.html")):
        sys.exit(f"web_serve: {a.folder}/poslab.html is missing; build it first (scripts/web_build.sh "
                 "writes build/web/site)")
    handler = functools.partial(Handler, directory=a.folder)
    with http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler) as httpd:
        print(f"PosLab: http://127.0.0.1:{httpd.server_address[1]}/poslab.html", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
