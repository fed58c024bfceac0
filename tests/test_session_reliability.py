"""Conversations under stress: threads and processes appending while folds run, and a process
killed in the middle of a fold."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from _session_twins import TWINS, open_conversation, opener, shutdown
from chatfold import Policy, find_orphans
from chatfold.session import Conversation
from chatfold.stores import SQLiteStore

from helpers import FakeSummarizer

POLICY = Policy(trigger_tokens=600, target_tokens=350, keep=3, summary_max_tokens=80)
PER_WRITER = 25


@pytest.fixture(params=TWINS)
def kind(request: pytest.FixtureRequest) -> str:
    """Which twin the writers (threads and spawned processes) use."""
    return str(request.param)


@pytest.fixture
def twin(kind: str) -> Iterator[Callable[..., Any]]:
    """Opens a conversation of that twin (an AsyncConversation is driven through the same
    names)."""
    yield from opener(kind)


def _units(writer: str, i: int) -> list[dict[str, Any]]:
    """Writer `writer`'s i-th append: a question, or a whole tool-call unit."""
    if i % 3 == 2:
        cid = f"{writer}-{i}"
        return [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function",
                 "function": {"name": "lookup", "arguments": f'{{"n": {i}}}'}}]},
            {"role": "tool", "tool_call_id": cid, "content": f"{writer} result {i} " * 5},
        ]
    return [{"role": "user", "content": f"{writer} message {i}: " + "details " * 12}]


def _writer(path: str, writer: str, kind: str) -> None:
    conv = open_conversation(kind, "stress", store=SQLiteStore(path),
                             summarizer=FakeSummarizer(), policy=POLICY)
    for i in range(PER_WRITER):
        conv.append(_units(writer, i))
        ctx = conv.raw_context()  # folds inline when over the trigger
        assert find_orphans(ctx) == []
    conv.close()
    shutdown(conv)


def _process_writer(path: str, writer: str, kind: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    _writer(path, writer, kind)


def test_threads_and_processes_append_while_folds_run(tmp_path: Path, kind: str) -> None:
    path = str(tmp_path / "stress.db")
    SQLiteStore(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_process_writer, args=(path, f"p{k}", kind)) for k in range(2)]
    threads = [threading.Thread(target=_writer, args=(path, f"t{k}", kind)) for k in range(3)]
    for p in procs:
        p.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    conv = Conversation("stress", store=SQLiteStore(path), summarizer=FakeSummarizer(),
                        policy=POLICY)
    transcript = conv.transcript()
    writers = [f"p{k}" for k in range(2)] + [f"t{k}" for k in range(3)]
    expected = sum(len(_units(w, i)) for w in writers for i in range(PER_WRITER))
    assert len(transcript) == expected
    for w in writers:
        mine = [m for m in transcript
                if str(m.get("content") or "").startswith(f"{w} ")
                or any(c["id"].startswith(f"{w}-") for c in m.get("tool_calls") or ())]
        assert mine == [m for i in range(PER_WRITER) for m in _units(w, i)]
    state = conv.store.load_state("stress")
    assert state.folds >= 1 and state.version == state.folds
    final = conv.raw_context()
    assert find_orphans(final) == []
    assert sum(1 for m in final if m.get("is_summary")) == 1


def _fold_and_hang(path: str, started: str, kind: str) -> None:
    sys.path.insert(0, str(Path(__file__).parent))

    class Hang(FakeSummarizer):
        def _answer(self, request: Any) -> str:
            Path(started).write_text("folding")
            time.sleep(600)
            return "never"

    conv = open_conversation(kind, "killed", store=SQLiteStore(path), summarizer=Hang(),
                             policy=POLICY, lease_seconds=1.0)
    conv.fold()


def test_a_process_killed_mid_fold_leaves_the_conversation_consistent(
    tmp_path: Path, kind: str, twin: Any
) -> None:
    path = str(tmp_path / "kill.db")
    history = [m for i in range(40) for m in _units("u", i)]
    seed = Conversation("killed", store=SQLiteStore(path), summarizer=FakeSummarizer(),
                        policy=POLICY)
    seed.append(history)
    started = tmp_path / "started"
    proc = mp.get_context("spawn").Process(target=_fold_and_hang, args=(path, str(started), kind))
    proc.start()
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists()
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(10)
    assert proc.exitcode == -signal.SIGKILL

    after = twin("killed", store=SQLiteStore(path), summarizer=FakeSummarizer(), policy=POLICY)
    assert after.store.load_state("killed").version == 0  # nothing half-written
    assert after.transcript() == history
    assert after.fold().reason == "fold_in_progress"  # the dead folder's lease, still live
    time.sleep(1.1)  # it expires: watched unchanged for its TTL
    result = after.fold()
    assert result.folded
    assert after.transcript() == history
    assert find_orphans(after.raw_context()) == []
