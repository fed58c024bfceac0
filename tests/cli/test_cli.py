"""``chatfold`` end to end through Click's runner: every command, good and bad input."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from _cli_fixtures import chat, locomo_sample, tool_chat, write_json, write_jsonl
from _fake_openai import FakeOpenAI
from click.testing import CliRunner, Result

from chatfold.cli.app import cli
from chatfold.cli.simulate import sparkline
from chatfold.messages import find_orphans, is_summary

SMALL = ["--trigger", "600", "--target", "400", "--keep", "4"]
"""A policy small enough that the fixture conversations fold."""


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, env=env, catch_exceptions=False)


def one_line_error(result: Result) -> str:
    """The error is one line, never a traceback (retry warnings may come before it)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert "Traceback" not in result.output + result.stderr
    assert lines and lines[-1].startswith("Error: "), result.stderr
    assert all(line.startswith("warning: ") for line in lines[:-1]), result.stderr
    return lines[-1]


@pytest.fixture
def conv_json(tmp_path: Path) -> Path:
    return write_json(tmp_path / "chat.json", tool_chat(20))


def check_folded(original: list[dict[str, Any]], folded: list[dict[str, Any]]) -> None:
    """Pinned head, one summary, then an unchanged suffix of the input; no orphan."""
    assert folded[0] == original[0]
    assert is_summary(folded[1]) and sum(1 for m in folded if is_summary(m)) == 1
    tail = folded[2:]
    assert tail == original[len(original) - len(tail):]
    assert find_orphans(folded) == []


# ---------------------------------------------------------------------------------------------
# help, usage errors


@pytest.mark.parametrize("command", ["compress", "inspect", "simulate", "chat", "demo"])
def test_every_command_has_help_with_examples(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and f"chatfold {command}" in result.stdout


def test_group_help_and_version() -> None:
    assert run("-h").exit_code == 0
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.startswith("chatfold, version ")


@pytest.mark.parametrize("args", [
    ["no-such-command"],
    ["inspect"],                                        # missing FILE
    ["inspect", "x.json", "--no-such-option"],
    ["inspect", "x.json", "--trigger", "lots"],
    ["compress", "x.json", "--to", "gemini"],
])
def test_usage_errors_exit_1(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output


def test_an_inconsistent_policy_is_a_usage_error_naming_the_flag(conv_json: Path) -> None:
    result = run("inspect", str(conv_json), "--trigger", "500", "--target", "900")
    assert result.exit_code == 1
    assert "--target" in result.stderr


def test_unknown_summarizer_is_a_usage_error(conv_json: Path) -> None:
    result = run("compress", str(conv_json), "--summarizer", "nope")
    assert result.exit_code == 1
    assert "nope" in one_line_error(result) and "extractive" in result.stderr


def test_unknown_counter_is_a_usage_error(conv_json: Path) -> None:
    result = run("inspect", str(conv_json), "--counter", "no-such-counter")
    assert result.exit_code == 1
    assert "--counter" in result.stderr


# ---------------------------------------------------------------------------------------------
# compress


def test_compress_json_round_trip(conv_json: Path) -> None:
    original = json.loads(conv_json.read_text())
    result = run("compress", str(conv_json), *SMALL)
    assert result.exit_code == 0, result.stderr
    folded = json.loads(result.stdout)
    check_folded(original, folded)
    assert "folded" in result.stderr and "tokens" in result.stderr
    # compress the output again: the summary rolls forward, still exactly one
    again = conv_json.parent / "again.json"
    again.write_text(result.stdout)
    second = run("compress", str(again), *SMALL, "--force")
    assert second.exit_code == 0, second.stderr
    refolded = json.loads(second.stdout)
    assert sum(1 for m in refolded if is_summary(m)) == 1
    assert find_orphans(refolded) == []


def test_verbose_logs_each_fold_to_stderr(conv_json: Path) -> None:
    quiet = run("compress", str(conv_json), *SMALL)
    loud = run("-v", "compress", str(conv_json), *SMALL)
    assert "chatfold: folded" not in quiet.stderr
    assert "chatfold: folded" in loud.stderr
    assert loud.stdout == quiet.stdout


def test_compress_under_the_trigger_writes_the_input_unchanged(tmp_path: Path) -> None:
    msgs = chat(4)
    path = write_json(tmp_path / "short.json", msgs)
    result = run("compress", str(path))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == msgs
    assert "under the trigger" in result.stderr


def test_compress_jsonl_from_stdin_writes_jsonl() -> None:
    msgs = tool_chat(20)
    text = "".join(json.dumps(m) + "\n" for m in msgs)
    result = run("compress", "-", *SMALL, input=text)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    folded = [json.loads(line) for line in lines]
    check_folded(msgs, folded)


def test_compress_json_object_keeps_its_other_keys(tmp_path: Path) -> None:
    body = {"model": "gpt-4o-mini", "temperature": 0.2, "messages": tool_chat(20)}
    path = write_json(tmp_path / "request.json", body)
    out = tmp_path / "out.json"
    result = run("compress", str(path), *SMALL, "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    written = json.loads(out.read_text())
    assert written["model"] == "gpt-4o-mini" and written["temperature"] == 0.2
    check_folded(body["messages"], written["messages"])


def test_compress_to_openai_drops_chatfold_keys(conv_json: Path) -> None:
    result = run("compress", str(conv_json), *SMALL, "--to", "openai")
    assert result.exit_code == 0
    folded = json.loads(result.stdout)
    assert all("is_summary" not in m for m in folded)
    assert folded[1]["role"] == "system" and folded[1]["content"].startswith("Summary of")


def test_compress_to_anthropic_writes_a_messages_body(conv_json: Path) -> None:
    result = run("compress", str(conv_json), *SMALL, "--to", "anthropic")
    assert result.exit_code == 0
    body = json.loads(result.stdout)
    assert body["system"].startswith("You can call tools.")
    assert "Summary of the earlier conversation" in body["system"]
    roles = [m["role"] for m in body["messages"]]
    assert roles[0] == "user"
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False))


def test_compress_incremental_replays_message_by_message(conv_json: Path) -> None:
    result = run("compress", str(conv_json), *SMALL, "--incremental")
    assert result.exit_code == 0, result.stderr
    assert "replayed 80 messages" in result.stderr
    check_folded(json.loads(conv_json.read_text()), json.loads(result.stdout))


def test_compress_with_an_unreachable_endpoint_is_one_clear_line(conv_json: Path) -> None:
    result = run("compress", str(conv_json), *SMALL, "--summarizer", "openai", "--model", "m",
                 "--base-url", "http://127.0.0.1:9/v1", "--retries", "0")
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "127.0.0.1:9" in line and "reach" in line
    assert result.stdout == ""


def test_compress_with_a_fake_openai_endpoint(conv_json: Path) -> None:
    with FakeOpenAI() as server:
        result = run("compress", str(conv_json), *SMALL, "--summarizer", "openai",
                     "--model", "fake", "--base-url", server.base_url)
    assert result.exit_code == 0, result.stderr
    folded = json.loads(result.stdout)
    assert folded[1]["content"].startswith("Summary of the earlier conversation: echo:")
    assert len(server.requests) == 1 and server.requests[0]["model"] == "fake"


# ---------------------------------------------------------------------------------------------
# bad input files: exit 2, one line naming the line / the message and field


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[\n  {"role": "user", "content": "hi"},\n  {"role": "user" "content": 1}\n]')
    result = run("inspect", str(path))
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "bad.json line 3" in line and "invalid JSON" in line


def test_invalid_jsonl_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n\n{"role": "assistant", "content": }\n')
    result = run("compress", str(path))
    assert result.exit_code == 2
    assert "bad.jsonl line 3" in one_line_error(result)


def test_a_bad_role_names_the_message_index_and_field(tmp_path: Path) -> None:
    msgs = chat(3)
    msgs[2]["role"] = "bot"
    path = write_json(tmp_path / "role.json", msgs)
    result = run("simulate", str(path))
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "message 2" in line and "role" in line and "'bot'" in line


def test_a_bad_message_in_jsonl_names_line_and_index(tmp_path: Path) -> None:
    msgs = chat(3, system=False)
    msgs[1]["content"] = 42
    path = write_jsonl(tmp_path / "c.jsonl", msgs)
    result = run("inspect", str(path))
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "line 2" in line and "message 1" in line and "content" in line


@pytest.mark.parametrize("content,problem", [
    (None, "no such file"),
    ("", "empty"),
    ('{"model": "x"}', "'messages'"),
    ("42", "expected a list"),
    ('{"messages": {"role": "user"}}', "'messages' must be a list"),
    ('[{"role": "user", "content": "a\\ud83d"}]', "message 0: content holds an unpaired"),
    ('{"model": "\\udcff", "messages": []}', "model holds an unpaired UTF-16 surrogate"),
])
def test_other_unreadable_files(tmp_path: Path, content: str | None, problem: str) -> None:
    path = tmp_path / "f.json"
    if content is not None:
        path.write_text(content)
    result = run("compress", str(path))
    assert result.exit_code == 2
    assert problem in one_line_error(result)


def test_a_directory_is_an_input_error(tmp_path: Path) -> None:
    result = run("inspect", str(tmp_path))
    assert result.exit_code == 2
    assert "directory" in one_line_error(result)


# ---------------------------------------------------------------------------------------------
# inspect


def test_inspect_reports_parts_units_and_no_problem(conv_json: Path) -> None:
    result = run("inspect", str(conv_json), *SMALL)
    assert result.exit_code == 0
    out = result.stdout
    for word in ("pinned", "summary", "recent", "rest", "counter: heuristic",
                 "20 tool-call unit(s)", "20 with their result", "problems: none"):
        assert word in out, word


def test_inspect_reports_an_orphan_tool_result(tmp_path: Path) -> None:
    msgs = tool_chat(3)
    del msgs[6]  # the tool call of the second turn: its result (now message 6) is orphaned
    path = write_json(tmp_path / "orphan.json", msgs)
    result = run("inspect", str(path))
    assert result.exit_code == 0
    assert "error [all] message 6: tool result without a matching tool call" in result.stdout

    data = json.loads(run("inspect", str(path), "--json").stdout)
    errors = [p for p in data["problems"] if p["severity"] == "error"]
    assert errors == [{"severity": "error", "provider": "all", "index": 6,
                       "problem": errors[0]["problem"]}]
    assert "tool result without" in errors[0]["problem"]
    assert run("inspect", str(path), "--strict").exit_code == 2


def test_inspect_json_figures(tmp_path: Path) -> None:
    msgs = tool_chat(20)
    msgs.insert(6, {"role": "system", "content": "Note: be brief."})  # mid-list system
    msgs[3]["x_trace_id"] = "abc"                                      # an unknown key
    msgs[-1] = {**msgs[-3], "tool_calls": [{"id": "dangling", "type": "function",
                                            "function": {"name": "f", "arguments": "{}"}}],
                "content": None}                                      # call without result
    path = write_json(tmp_path / "c.json", msgs)
    result = run("inspect", str(path), "--json", *SMALL)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["messages"] == len(msgs) and data["counter"] == "heuristic"
    assert data["over_trigger"] is True and data["would_fold_now"] is True
    parts = data["parts"]
    assert sum(p["messages"] for p in parts.values()) == len(msgs)
    assert sum(p["tokens"] for p in parts.values()) == data["tokens"]
    assert parts["pinned"]["indices"] == [0, 6]  # system messages are pinned
    problems = {(p["provider"], p["index"]): p for p in data["problems"]}
    assert problems[("anthropic", 6)]["severity"] == "warning"
    assert "x_trace_id" in problems[("openai", 3)]["problem"]
    assert "dangling" in problems[("all", len(msgs) - 1)]["problem"]
    assert data["tool_calls"][0] == {"id": "call_0_0", "name": "get_weather", "call_index": 2,
                                     "result_index": 3}


def test_inspect_a_folded_file_notes_the_summary_marker(conv_json: Path, tmp_path: Path) -> None:
    folded = tmp_path / "folded.json"
    assert run("compress", str(conv_json), *SMALL, "-o", str(folded)).exit_code == 0
    data = json.loads(run("inspect", str(folded), "--json", *SMALL).stdout)
    assert data["parts"]["summary"]["messages"] == 1
    assert data["would_fold_now"] is False
    assert [p["severity"] for p in data["problems"]] == ["info"]


def test_environment_variables_set_defaults(conv_json: Path) -> None:
    env = {"CHATFOLD_TRIGGER": "5000", "CHATFOLD_KEEP": "6"}
    data = json.loads(run("inspect", str(conv_json), "--json", env=env).stdout)
    assert data["policy"]["trigger"] == 5000 and data["policy"]["keep"] == 6
    # an option beats the environment
    data = json.loads(run("inspect", str(conv_json), "--json", "--keep", "2", env=env).stdout)
    assert data["policy"]["keep"] == 2


# ---------------------------------------------------------------------------------------------
# simulate


def test_simulate_prints_the_sawtooth_figures(conv_json: Path) -> None:
    result = run("simulate", str(conv_json), *SMALL)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for word in ("messages replayed", "summarizer calls", "tokens sent to the summarizer",
                 "peak context", "mean context", "prompt tokens", "sending everything",
                 "saved", "chatfold context per message"):
        assert word in out, word


def test_simulate_json_stays_under_the_trigger_and_saves(conv_json: Path) -> None:
    result = run("simulate", str(conv_json), *SMALL, "--json")
    data = json.loads(result.stdout)
    report = data["reports"]["chatfold"]
    assert report["summarizer_calls"] >= 2 and report["folds"] == len(report["fold_points"])
    assert report["peak_context_tokens"] <= 600
    assert report["prompt_tokens"] < report["full_history_prompt_tokens"]
    assert report["orphan_contexts"] == 0
    assert len(report["turns"]) == 80
    contexts = [t["context_tokens"] for t in report["turns"]]
    # a sawtooth: it rises to the trigger and drops at each fold
    for point in report["fold_points"]:
        k = point - 1  # turns start after the system prompt
        assert contexts[k] < contexts[k - 1]


def test_simulate_compare_runs_both_policies(conv_json: Path) -> None:
    result = run("simulate", str(conv_json), *SMALL, "--compare")
    assert result.exit_code == 0
    assert "chatfold" in result.stdout and "seed" in result.stdout
    assert "seed context per message" in result.stdout
    data = json.loads(run("simulate", str(conv_json), *SMALL, "--compare", "--json").stdout)
    chatfold, seed = data["reports"]["chatfold"], data["reports"]["seed"]
    assert seed["summarizer_calls"] > 0 and seed["orphan_contexts"] == 0
    assert seed["counter_name"] == chatfold["counter_name"] == "heuristic"
    assert seed["full_history_prompt_tokens"] == chatfold["full_history_prompt_tokens"]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_simulate_plot_writes_a_real_png(conv_json: Path, tmp_path: Path) -> None:
    out = tmp_path / "sawtooth.png"
    result = run("simulate", str(conv_json), *SMALL, "--compare", "--plot", str(out))
    assert result.exit_code == 0, result.stderr
    assert f"plot written to {out}" in result.stderr
    width, height = png_size(out)
    assert width >= 800 and height >= 400
    assert out.stat().st_size > 20_000  # axes, two series, lines, legend: not a blank image


def test_simulate_plot_to_an_unwritable_place_is_an_input_error(conv_json: Path,
                                                                 tmp_path: Path) -> None:
    result = run("simulate", str(conv_json), "--plot", str(tmp_path / "no" / "such" / "x.png"))
    assert result.exit_code == 2
    assert "x.png" in one_line_error(result)


# ---------------------------------------------------------------------------------------------
# LoCoMo-format input


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    return write_json(tmp_path / "locomo.json", [locomo_sample("conv-a"),
                                                 locomo_sample("conv-b", sessions=4)])


def test_locomo_input_is_read_as_a_conversation(locomo_file: Path) -> None:
    result = run("compress", str(locomo_file), "--trigger", "100000")
    assert result.exit_code == 0
    assert "2 conversations; using conv-a" in result.stderr
    msgs = json.loads(result.stdout)
    assert len(msgs) == 18
    assert msgs[0] == {"role": "user", "name": "Ana", "content": msgs[0]["content"]}
    assert msgs[0]["content"].startswith("[10:00 am on 1 March, 2024] Session 1 line 0")
    assert msgs[1]["role"] == "assistant" and msgs[1]["name"] == "Bo"
    assert msgs[1]["content"].endswith("[shares a photo: a photo of a small garden]")
    assert msgs[6]["content"].startswith("[10:00 am on 2 March, 2024] Session 2 line 0")


@pytest.mark.parametrize("sample", ["conv-b", "1"])
def test_locomo_sample_is_chosen_by_id_or_index(locomo_file: Path, sample: str) -> None:
    result = run("simulate", str(locomo_file), "--sample", sample, "--json", "--trigger", "400")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["format"] == "locomo" and data["sample"] == "conv-b"
    assert len(data["reports"]["chatfold"]["turns"]) == 24
    assert data["reports"]["chatfold"]["summarizer_calls"] > 0
    assert "using" not in result.stderr


def test_locomo_unknown_sample_is_an_input_error(locomo_file: Path) -> None:
    result = run("simulate", str(locomo_file), "--sample", "conv-z")
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "conv-z" in line and "conv-a" in line


def test_locomo_bad_speaker_names_the_turn(tmp_path: Path) -> None:
    sample = locomo_sample("x")
    sample["conversation"]["session_2"][3]["speaker"] = "Cy"
    path = write_json(tmp_path / "l.json", sample)
    result = run("inspect", str(path))
    assert result.exit_code == 2
    assert "conversation.session_2[3].speaker 'Cy'" in one_line_error(result)


# ---------------------------------------------------------------------------------------------
# chat, driven through stdin against a loopback OpenAI-compatible server


def chat_args(db: Path, server: FakeOpenAI, *more: str) -> list[str]:
    return ["chat", "--db", str(db), "--session", "s1", "--model", "fake-model",
            "--base-url", server.base_url, *more]


def test_chat_replies_shows_the_gauge_and_keeps_the_history(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    lines = [f"question {i}: " + "tell me more about tomatoes " * 4 for i in range(8)]
    script = "\n".join([*lines, "/stats", "/summary", "/fold", "/transcript", "/nope",
                        "/quit", "never sent"]) + "\n"
    with FakeOpenAI() as server:
        result = run(*chat_args(db, server, "--trigger", "300", "--target", "200"),
                     input=script)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("echo: question") >= 8
    assert "context [" in result.stderr and "/300 tokens" in result.stderr
    assert "unknown command /nope" in result.stderr
    assert "fold(s)" in result.stderr
    assert "messages logged      16" in result.stdout
    assert "Facts" in result.stdout or "facts" in result.stdout.lower()
    assert "user: never sent" not in result.stdout
    # every model call got the pinned system prompt, and later ones a summary and a window
    assert len(server.requests) == 8
    last = server.requests[-1]["messages"]
    assert last[0] == {"role": "system", "content": "You are a helpful assistant."}
    assert last[1]["content"].startswith("Summary of the earlier conversation")
    assert last[-1]["content"].startswith("question 7")
    assert all("is_summary" not in m for m in last)


def test_chat_resumes_a_session(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    with FakeOpenAI() as server:
        assert run(*chat_args(db, server), input="first\n").exit_code == 0
        result = run(*chat_args(db, server), input="second\n/transcript\n")
    assert "(2 message(s) so far)" in result.stderr
    transcript = result.stdout.split("echo: second\n", 1)[1]
    assert "user: first\nassistant: echo: first\nuser: second" in transcript


def test_chat_with_an_unreachable_model_keeps_the_message(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    args = ["chat", "--db", str(db), "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--timeout", "2"]
    result = run(*args, input="hello?\n")
    assert result.exit_code == 2
    assert "could not be reached" in result.stderr and "saved" in result.stderr
    assert "Traceback" not in result.stderr
    with FakeOpenAI() as server:
        again = run(*chat_args(db, server)[:-2], "--base-url", server.base_url,
                    "--session", "default", input="/transcript\n")
    assert "user: hello?" in again.stdout


def test_chat_needs_a_model_and_a_key_or_endpoint(tmp_path: Path) -> None:
    assert run("chat", "--db", str(tmp_path / "x.db")).exit_code == 1
    result = run("chat", "--db", str(tmp_path / "x.db"), "--model", "gpt-4o-mini")
    assert result.exit_code == 1 and "OPENAI_API_KEY" in result.stderr


# ---------------------------------------------------------------------------------------------
# small pieces


def test_sparkline() -> None:
    assert sparkline([]) == ""
    assert sparkline([0, 5, 10], top=10) == " ▄█"
    assert len(sparkline(list(range(1000)), width=50)) == 50


def test_demo_runs_offline() -> None:
    result = run("demo")
    assert result.exit_code == 0
    assert "chatfold demo" in result.stdout


def test_docs_cli_md_is_current() -> None:
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_cli_docs",
                                                  root / "scripts" / "gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    current = (root / "docs" / "cli.md").read_text(encoding="utf-8")
    assert module.render() == current, "docs/cli.md is stale: run scripts/gen_cli_docs.py"
