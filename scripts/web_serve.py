#!/usr/bin/env python3
"""Serves posviz's page (build/web/) on 127.0.0.1, as a static host would.

  scripts/web_serve.py DIR [--port N] [--no-isolation]

By default every response carries the two headers that make the page cross-origin isolated
(Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp), so the page
loads the build with worker threads; --no-isolation serves it as a plain static host does, and the
page then computes between frames. Prints the address once it listens. Port 0 picks a free port.
"""
import argparse
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    isolation = True
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}

    def end_headers(self):
        if self.isolation:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):  # quiet: the page's requests are not news
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--no-isolation", action="store_true")
    a = p.parse_args()
    Handler.isolation = not a.no_isolation
    handler = functools.partial(Handler, directory=a.dir)
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), handler)
    except OSError as e:
        sys.exit(f"scripts/web: cannot listen on 127.0.0.1:{a.port}: {e.strerror} (try --port N)")
    kind = "cross-origin isolated: worker threads" if Handler.isolation else "not isolated: jobs between frames"
    print(f"posviz: http://127.0.0.1:{server.server_address[1]}/  ({kind}; Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
