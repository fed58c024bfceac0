"""Smoke test of the benchmarks: every ``--quick`` run completes and writes its results.

Each benchmark runs in a subprocess, as ``make bench`` runs it, with ``--out`` pointing at a
temporary directory so the committed results are never touched. Nothing here asserts a
timing: the quick inputs are too small for the figures to mean anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
NEEDS_LOCOMO = {"tokens", "calls", "retention", "drift", "recall"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATFOLD_", "OPENAI_", "ANTHROPIC_"))}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


class _Run:
    """A benchmark started in the background; ``result()`` waits for it."""

    def __init__(self, python: str, name: str, out: Path, *args: str,
                 env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [python, str(BENCH / f"bench_{name}.py"), "--quick", "--out", str(out), *args],
            cwd=ROOT, env=env or _env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )
        self.collected = False

    def result(self) -> tuple[int, str]:
        self.collected = True
        try:
            _, err = self.proc.communicate(timeout=110)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
            return -1, "timed out\n" + err
        return self.proc.returncode, err


def _run(python: str, name: str, out: Path, *args: str,
         env: dict[str, str] | None = None) -> tuple[int, str]:
    return _Run(python, name, out, *args, env=env).result()


QUICK = ["overhead", "calls", "retention", "drift", "recall", "latency", "tokens", "summarizer",
         "memory"]


def _peers_python() -> Path:
    venv = Path(os.environ.get("CHATFOLD_PEERS_VENV") or BENCH / ".venv-peers")
    return venv / "bin" / "python"


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bench-results")


@pytest.fixture(scope="module")
def started(out_dir: Path) -> Iterator[dict[str, _Run]]:
    """Every quick benchmark, started at once (they are mostly single-threaded)."""
    runs = {}
    for name in QUICK:
        if name in NEEDS_LOCOMO and not LOCOMO.exists():
            continue
        if not (BENCH / f"bench_{name}.py").exists():
            continue
        runs[name] = _Run(sys.executable, name, out_dir)
    if _peers_python().exists():
        runs["peers"] = _Run(str(_peers_python()), "peers", out_dir)
    yield runs
    for run in runs.values():
        if not run.collected:  # a run no selected test waited for: stop it, close its pipes
            if run.proc.poll() is None:
                run.proc.kill()
            run.proc.communicate()


@pytest.mark.parametrize("name", QUICK)
def test_quick_benchmark_writes_results(name: str, out_dir: Path,
                                        started: dict[str, _Run]) -> None:
    if name in NEEDS_LOCOMO and not LOCOMO.exists():
        pytest.skip(f"LoCoMo is not at {LOCOMO}")
    if name not in started:
        pytest.skip(f"bench_{name}.py is not there")
    rc, err = started[name].result()
    assert rc == 0, err[-3000:]
    md = out_dir / f"{name}.md"
    assert md.exists()
    text = md.read_text(encoding="utf-8")
    assert f"bench_{name}.py --quick" in text  # the command that made it
    assert "cores" in text and "quick mode" in text
    data = json.loads((out_dir / f"{name}.json").read_text(encoding="utf-8"))
    assert data["quick"] is True and data["headline"]


def test_drift_quick_reports_every_distance(out_dir: Path, started: dict[str, _Run]) -> None:
    if "drift" not in started:
        pytest.skip(f"LoCoMo is not at {LOCOMO}")
    rc, err = started["drift"].result()
    assert rc == 0, err[-3000:]
    text = (out_dir / "drift.md").read_text(encoding="utf-8")
    assert "| 1 fold | 2 folds | 4 folds | 8 folds | 16 folds | 16 / 1 |" in text
    assert "| LoCoMo (en) |" in text
    # the Chinese set runs when the bench extra's corpora are installed, and says so otherwise
    assert "| Chinese sessions (zh) |" in text or "not installed" in text
    head = json.loads((out_dir / "drift.json").read_text(encoding="utf-8"))["headline"]
    assert head["distances"] == [1, 2, 4, 8, 16] and head["en:facts"] > 0


def test_peers_quick(out_dir: Path, started: dict[str, _Run]) -> None:
    if "peers" not in started:
        pytest.skip(f"the peers environment is not built ({_peers_python().parent.parent}): "
                    "run `bash benchmarks/peers/setup.sh`")
    rc, err = started["peers"].result()
    assert rc == 0, err[-3000:]
    text = (out_dir / "peers.md").read_text(encoding="utf-8")
    assert "bench_peers.py --quick" in text
    # every peer compared at equal mean and equal peak context, with unseen drops counted
    assert text.count("| equal mean |") >= 3 and text.count("| equal peak |") >= 3
    assert "dropped unseen" in text


def test_peers_outside_its_environment_says_why(tmp_path: Path) -> None:
    try:
        import langmem  # noqa: F401
    except ImportError:
        pass
    else:  # pragma: no cover - only when someone installs the peers in the dev venv
        pytest.skip("the peers are importable here")
    rc, err = _run(sys.executable, "peers", tmp_path)
    assert rc == 0, err[-3000:]
    text = (tmp_path / "peers.md").read_text(encoding="utf-8")
    # The dev venv holds llama-index-core (the llama-index integration extra), so that peer
    # may run here; the peers that do not import are named with their import error.
    assert "ModuleNotFoundError" in text


def test_run_all_assembles_without_touching_the_committed_file(
        out_dir: Path, started: dict[str, _Run]) -> None:
    for run in started.values():
        run.result()
    committed = ROOT / "BENCHMARKS.md"
    before = committed.stat().st_mtime_ns if committed.exists() else None
    proc = subprocess.run(
        [sys.executable, str(BENCH / "run_all.py"), "--quick", "--no-run", "--out", str(out_dir)],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (out_dir / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert text.startswith("# chatfold benchmarks") and "## Headline" in text
    assert (out_dir / "headline.md").exists()
    after = committed.stat().st_mtime_ns if committed.exists() else None
    assert before == after


# ---------------------------------------------------------------------------------------------
# the LLM tier of the retention benchmark, against a loopback fake endpoint


class _FakeOpenAI(BaseHTTPRequestHandler):
    """Answers every chat completion with YES (a summary, or a judge's verdict)."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        reply = {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "YES"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def fake_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_retention_llm_tier_runs_against_an_endpoint(tmp_path: Path, fake_endpoint: str) -> None:
    pytest.importorskip("openai")
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo is not at {LOCOMO}")
    env = _env(CHATFOLD_BENCH_BASE_URL=fake_endpoint, CHATFOLD_BENCH_MODEL="fake-model")
    rc, err = _run(sys.executable, "retention", tmp_path, "--budgets", "1000",
                   "--judge-items", "3", env=env)
    assert rc == 0, err[-3000:]
    text = (tmp_path / "retention.md").read_text(encoding="utf-8")
    assert "LLM tier run with `fake-model`" in text and "LLM judge" in text
    data = json.loads((tmp_path / "retention.json").read_text(encoding="utf-8"))
    assert data["headline"]["llm_tier"] is True


def test_read_probes_run_each_event_alone() -> None:
    """The read probes' offline mode (no filler, no corpora): every probe file loads, and each
    language reports its wrong checks out of its total."""
    proc = subprocess.run([sys.executable, str(BENCH / "bench_read_probes.py"), "--alone"],
                          capture_output=True, text=True, env=_env(), timeout=300, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if " checks wrong " in line]
    probes = sorted(p.stem for p in (BENCH / "read_probes").glob("*.json"))
    assert len(lines) == 2 * len(probes) >= 2
    for line in lines:
        wrong, total = line.split(": ")[1].split(" checks wrong")[0].split(" of ")
        assert 0 <= int(wrong) <= int(total) and int(total) > 0
