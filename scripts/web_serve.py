#!/usr/bin/env python3
"""Serves the browser build (build/web) on 127.0.0.1 only, with the headers a WebAssembly
page that may use threads needs (Cross-Origin-Opener-Policy: same-origin,
Cross-Origin-Embedder-Policy: require-corp) and the right type for .wasm. Files go out
gzip-compressed to browsers that accept it (Content-Encoding: gzip; compressed once per
file version and kept in memory), so the first load crosses the wire at about a third of
its size.

    scripts/web_serve.py [FOLDER] [--port 8765]    then open http://127.0.0.1:8765/poslab.html
"""
import argparse
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
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.endswith(COMPRESSED) and os.path.isfile(path)):
            return super().send_head()
        try:
            body = gzipped(path)
        except OSError:
            return super().send_head()
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

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
    ap.add_argument("folder", nargs="?", default="build/web")
    ap.add_argument("--port", type=int, default=8765, help="0 = any free port (printed)")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.folder, "poslab.html")):
        sys.exit(f"web_serve: {a.folder}/poslab.html is missing; build it first: scripts/web_build.sh")
    handler = functools.partial(Handler, directory=a.folder)
    with http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler) as httpd:
        print(f"PosLab: http://127.0.0.1:{httpd.server_address[1]}/poslab.html", flush=True)
        try:
            httpd.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
