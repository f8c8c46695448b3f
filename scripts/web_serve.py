#!/usr/bin/env python3
"""Serves the browser build (build/web) on 127.0.0.1 only, with the headers a WebAssembly
page that may use threads needs (Cross-Origin-Opener-Policy: same-origin,
Cross-Origin-Embedder-Policy: require-corp) and the right type for .wasm.

    scripts/web_serve.py [FOLDER] [--port 8765]    then open http://127.0.0.1:8765/poslab.html
"""
import argparse
import functools
import http.server
import os
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".data": "application/octet-stream",
    }

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
