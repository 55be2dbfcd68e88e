#!/usr/bin/env python3
"""A stand-in for llama-server in the harness's unit tests (never in scenarios).

Understands --host/--port; --help prints a few options. Behaviour switches: --crash (exit 3 at once),
--slow-start SECONDS (answer 503 "loading" first), --ignore-sigterm (only SIGKILL stops it).
"""
import http.server
import json
import signal
import sys
import time

HELP = """-h,    --help                           print usage and exit
--host HOST                             ip address to listen
--port PORT                             port to listen
-m,    --model FNAME                    model path
--crash                                 exit at once
--slow-start SECONDS                    answer 503 first
--ignore-sigterm                        only SIGKILL stops it
"""


def main(argv):
    if "--help" in argv:
        print(HELP)
        return 0
    if "--version" in argv:
        print("version: 1 (fake)", file=sys.stderr)
        return 0
    print("fake llama-server starting", flush=True)
    if "--crash" in argv:
        print("error: model file not found", flush=True)
        return 3
    host = argv[argv.index("--host") + 1]
    port = int(argv[argv.index("--port") + 1])
    ready_at = time.monotonic() + (float(argv[argv.index("--slow-start") + 1]) if "--slow-start" in argv else 0)
    if "--ignore-sigterm" in argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            ready = time.monotonic() >= ready_at
            body = json.dumps({"status": "ok"} if ready else {"error": {"code": 503, "message": "Loading model"}})
            self.send_response(200 if ready else 503)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            print("request", *args, flush=True)

    server = http.server.HTTPServer((host, port), Handler)
    print(f"listening on {host}:{port}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
