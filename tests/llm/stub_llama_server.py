"""A stand-in for llama.cpp's ``llama-server`` (same arguments, same endpoints) for the local provider's tests.

It answers 503 on ``/health`` while "loading" (0.3 s), then 200; ``/v1/chat/completions`` replies
with the model file's name and the last user message. A model file whose content is ``BROKEN``
fails to load: the process prints an error and exits 1, as the real server does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--ctx-size", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    model = Path(args.model)
    print(f"loading model {model.name} (ctx {args.ctx_size}, {args.threads} threads)", flush=True)
    if model.read_bytes().startswith(b"BROKEN"):
        print("error: failed to load model: invalid magic", flush=True)
        return 1
    ready_at = time.monotonic() + 0.3

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = 200 if self.path == "/health" and time.monotonic() >= ready_at else 503
            self._json(status, {"status": "ok" if status == 200 else "loading model"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            text = f"{model.stem}: {body['messages'][-1]['content']}"
            self._json(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]})

        def _json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a: Any) -> None:
            pass

    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
