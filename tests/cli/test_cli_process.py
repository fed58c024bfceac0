"""``chatfold`` as a real process: the console script, a missing extra, and Ctrl-C in chat."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _cli_fixtures import tool_chat, write_json
from _fake_openai import FakeOpenAI
from click.testing import CliRunner

from chatfold.cli.app import cli

ROOT = Path(__file__).resolve().parents[2]


def console_script() -> str:
    """The installed ``chatfold`` script next to this interpreter."""
    script = Path(sys.executable).parent / "chatfold"
    found = str(script) if script.exists() else shutil.which("chatfold")
    if found is None:
        pytest.skip("the chatfold console script is not installed (pip install -e '.[cli]')")
    return found


def env() -> dict[str, str]:
    """The test's environment (the autouse fixture already cleared CHATFOLD_* and keys)."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}


def test_the_console_script_runs(tmp_path: Path) -> None:
    path = write_json(tmp_path / "c.json", tool_chat(5))
    done = subprocess.run([console_script(), "inspect", str(path), "--json"],
                          capture_output=True, text=True, env=env(), timeout=60)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["messages"] == 21 and data["problems"] == []
    bad = subprocess.run([console_script(), "inspect", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, env=env(), timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"Error: {tmp_path / 'missing.json'}: no such file"]


def test_without_the_cli_extra_it_prints_the_install_command() -> None:
    code = ("import sys; sys.modules['click'] = None; "  # as if Click were not installed
            "from chatfold.cli import main; main(['--help'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env(), timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "chatfold: the command line needs the 'cli' extra (Click and rich): "
        "pip install 'chatfold[cli]'")
    assert "Traceback" not in done.stderr


def test_ctrl_c_in_chat_leaves_the_conversation_saved(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    with FakeOpenAI() as server:
        args = [console_script(), "chat", "--db", str(db), "--session", "trip",
                "--model", "fake-model", "--base-url", server.base_url]
        # First turn answered; the second one hangs in the model call and is interrupted.
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env())
        assert proc.stdin is not None
        proc.stdin.write("my name is Ada\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while len(server.requests) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        server.hang.set()
        server.received.clear()
        proc.stdin.write("I live in Lyon\n")
        proc.stdin.flush()
        assert server.received.wait(30), "the second model call never arrived"
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        server.release.set()
    assert proc.returncode == 130, err
    assert "echo: my name is Ada" in out
    assert "interrupted" in err and "'trip' is saved" in err
    assert "Traceback" not in err

    # Everything typed before the interrupt is in the store, in order.
    with FakeOpenAI() as server:
        result = CliRunner().invoke(cli, [
            "chat", "--db", str(db), "--session", "trip", "--model", "fake-model",
            "--base-url", server.base_url], input="/transcript\n/quit\n")
    assert result.exit_code == 0, result.stderr
    assert "(3 message(s) so far)" in result.stderr
    assert result.stdout.splitlines() == [
        "system: You are a helpful assistant.",
        "user: my name is Ada",
        "assistant: echo: my name is Ada",
        "user: I live in Lyon",
    ]
    assert server.requests == []
