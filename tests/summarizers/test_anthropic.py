"""AnthropicSummarizer against a real loopback HTTP server, through the real ``anthropic`` SDK."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _llama import LLAMA_MAX_ANSWER, LLAMA_TIMEOUT
from _sdk_common import FAST, fail, sdk_exception_classes, summarizer_factory
from _servers import FakeLLMServer, Reply, anthropic_message, unused_port

from chatfold import SummaryRequest
from chatfold._errors import MissingDependencyError, SummarizerError
from chatfold.summarizers._answer import output_budget
from chatfold.summarizers.anthropic import (
    ANTHROPIC_ERROR_RULES,
    LOCAL_API_KEY,
    AnthropicSummarizer,
)
from chatfold.summarizers.prompts import build_prompt

anthropic = pytest.importorskip("anthropic")


@pytest.fixture
def make(server: FakeLLMServer) -> Iterator[Callable[..., AnthropicSummarizer]]:
    """Build summarizers pointed at ``server``; close them all after the test."""
    yield from summarizer_factory(
        AnthropicSummarizer, "fake-claude", base_url=server.base_url, api_key="sk-ant-test"
    )


def sent_key(headers: Any) -> str:
    """The key as sent: ``x-api-key`` (older SDKs) or ``Authorization: Bearer`` (newer)."""
    return str(headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer "))


def test_request_carries_system_user_model_and_budget(
    run: Any, make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    server.enqueue(Reply.anthropic("Facts:\n", "- Ann lives in Lyon."))
    assert run(make(), small_request) == "Facts:\n- Ann lives in Lyon."
    [sent] = server.requests
    prompt = build_prompt(small_request)
    assert sent.path == "/v1/messages"
    assert sent_key(sent.headers) == "sk-ant-test"
    assert "anthropic-version" in sent.headers
    assert sent.body == {
        "model": "fake-claude",
        "system": prompt.system,
        "messages": [{"role": "user", "content": prompt.user}],
        "max_tokens": output_budget(small_request.max_tokens),
    }


def test_request_options(make: Any, server: FakeLLMServer, small_request: SummaryRequest) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    make(temperature=0.0, reasoning_tokens=1024, extra_body={"thinking": thinking}).summarize(
        small_request
    )
    body = server.requests[0].body
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == output_budget(small_request.max_tokens) + 1024
    assert body["thinking"] == thinking


def test_options_as_one_object(make: Any, server: FakeLLMServer,
                               small_request: SummaryRequest) -> None:
    from chatfold.summarizers import RemoteOptions

    opts = RemoteOptions(timeout=5, max_retries=0, reasoning_tokens=100)
    make(options=opts).summarize(small_request)
    body = server.requests[0].body
    assert "temperature" not in body  # unset: Anthropic's default is to leave it out
    assert body["max_tokens"] == output_budget(small_request.max_tokens) + 100
    assert make(options=opts.replace(temperature=0.2)).temperature == 0.2
    assert make(options=opts, timeout=9).timeout == 9.0


def test_only_text_blocks_are_kept(
    make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    blocks = [
        {"type": "thinking", "thinking": "The user moved.", "signature": "sig"},
        {"type": "text", "text": "<think>inline</think>Facts:\n- Ann lives in Lyon.\n"},
    ]
    server.enqueue(Reply(body=anthropic_message(blocks=blocks)))
    assert make().summarize(small_request) == "Facts:\n- Ann lives in Lyon."


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply.anthropic(), "no content"),
        (Reply.anthropic("  \n "), "empty summary"),
        (Reply(body=anthropic_message(blocks=[{"type": "thinking", "thinking": "x",
                                               "signature": "s"}])), "no text"),
        (Reply.anthropic("", stop_reason="max_tokens"), "reasoning_tokens"),
        (Reply.anthropic("I can't", stop_reason="refusal"), "refused"),
        (Reply(body={"unexpected": True}), "no content"),
        (Reply.malformed(), "not JSON"),
    ],
    ids=["no-blocks", "blank", "thinking-only", "cut", "refusal", "shape", "malformed"],
)
def test_unusable_answer_fails_without_retry(
    make: Any, server: FakeLLMServer, small_request: SummaryRequest, reply: Reply, words: str
) -> None:
    server.enqueue(reply)
    with pytest.raises(SummarizerError) as info:
        make().summarize(small_request)
    assert words in str(info.value) and info.value.retryable is False
    assert len(server.requests) == 1


def test_overloaded_529_and_429_are_retried(
    run: Any, make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    overloaded = Reply.error(529, "Overloaded", error_type="overloaded_error")
    server.enqueue(overloaded, Reply.rate_limited("0"), Reply.anthropic("Facts:\n- Ann"))
    assert run(make(max_retries=2), small_request) == "Facts:\n- Ann"
    assert len(server.requests) == 3


def test_5xx_gives_up_after_max_retries(
    make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    server.enqueue(*[Reply.error(500)] * 5)
    with pytest.raises(SummarizerError) as info:
        make(max_retries=1).summarize(small_request)
    error = info.value
    assert error.retryable is True and error.status_code == 500
    assert len(server.requests) == 2
    assert isinstance(error.__cause__, anthropic.InternalServerError)


@pytest.mark.parametrize("status", [400, 401, 404, 413])
def test_client_errors_are_not_retried(
    make: Any, server: FakeLLMServer, small_request: SummaryRequest, status: int
) -> None:
    server.enqueue(Reply.error(status, error_type="invalid_request_error"))
    with pytest.raises(SummarizerError) as info:
        make().summarize(small_request)
    assert info.value.status_code == status and info.value.retryable is False
    assert len(server.requests) == 1


def test_timeout_is_retryable(
    run: Any, make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    server.enqueue(Reply(hang=True), Reply(hang=True))
    error = fail(run, make(timeout=0.3, max_retries=1), small_request)
    assert "timed out after 0.3 s" in str(error) and error.retryable is True
    assert len(server.requests) == 2


def test_connection_refused_is_retryable(make: Any, small_request: SummaryRequest) -> None:
    summarizer = make(base_url=f"http://127.0.0.1:{unused_port()}", max_retries=0)
    with pytest.raises(SummarizerError, match="could not be reached") as info:
        summarizer.summarize(small_request)
    assert info.value.retryable is True


def test_api_key_never_appears_in_errors(
    make: Any, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    key = "sk-ant-SECRET-0123456789"
    server.enqueue(Reply.error(401, f"invalid x-api-key {key}", error_type="authentication_error"))
    summarizer = make(api_key=key)
    with pytest.raises(SummarizerError) as info:
        summarizer.summarize(small_request)
    assert key not in str(info.value) and key not in repr(summarizer)


def test_environment_configuration(
    monkeypatch: pytest.MonkeyPatch, server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    with AnthropicSummarizer("claude", **FAST) as summarizer:
        summarizer.summarize(small_request)
    assert sent_key(server.requests[0].headers) == "sk-ant-env"


def test_local_endpoint_needs_no_key(server: FakeLLMServer, small_request: SummaryRequest) -> None:
    with AnthropicSummarizer("local", base_url=server.base_url, **FAST) as summarizer:
        summarizer.summarize(small_request)
    assert sent_key(server.requests[0].headers) == LOCAL_API_KEY


def test_anthropic_endpoint_without_key_fails_early() -> None:
    with pytest.raises(SummarizerError, match="ANTHROPIC_API_KEY"):
        AnthropicSummarizer("claude-haiku-4-5")


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(MissingDependencyError, match=r"chatfold\[anthropic\]"):
        AnthropicSummarizer("claude", base_url="http://x")


def test_given_client_keeps_our_retry_count(
    server: FakeLLMServer, small_request: SummaryRequest
) -> None:
    client = anthropic.Anthropic(base_url=server.base_url, api_key="sk-given", max_retries=5)
    try:
        summarizer = AnthropicSummarizer("c", client=client, max_retries=1, retry_backoff=0.001)
        server.enqueue(*[Reply.error(503)] * 10)
        with pytest.raises(SummarizerError):
            summarizer.summarize(small_request)
        assert len(server.requests) == 2
        summarizer.close()
        assert not client.is_closed()
    finally:
        client.close()


def test_every_anthropic_exception_class_is_mapped() -> None:
    classes = sdk_exception_classes(anthropic)
    assert anthropic.AnthropicError in classes and anthropic.RateLimitError in classes
    # A status error the SDK adds in a later release (a new 400 or 403 subclass) inherits its
    # parent's rule, where the HTTP status decides; anything else must be named in the table.
    unmapped = sorted(c.__name__ for c in classes if c.__name__ not in ANTHROPIC_ERROR_RULES
                      and not issubclass(c, anthropic.APIStatusError))
    assert not unmapped, f"add these anthropic exceptions to ANTHROPIC_ERROR_RULES: {unmapped}"


def test_every_anthropic_error_translates_at_the_boundary() -> None:
    failures = AnthropicSummarizer("c", base_url="http://127.0.0.1:9")._errors()
    for cls in sdk_exception_classes(anthropic):
        if not issubclass(cls, anthropic.AnthropicError):
            continue
        exc = cls.__new__(cls)  # no SDK constructor is called: only the class matters here
        Exception.__init__(exc, f"{cls.__name__} happened")
        with pytest.raises(SummarizerError) as info, failures.boundary():
            raise exc
        assert info.value.__cause__ is exc
        expected = ANTHROPIC_ERROR_RULES.get(cls.__name__) or failures.rule_for(cls.__mro__[1])
        assert expected is not None and failures.rule_for(cls) is expected


def test_spend_limit_429_is_not_retryable() -> None:
    failures = AnthropicSummarizer("c", base_url="http://127.0.0.1:9")._errors()
    cls = getattr(anthropic, "EnforcedSpendLimitReachedError", None)
    if cls is None:
        pytest.skip("this anthropic SDK has no spend-limit error class")
    exc = cls.__new__(cls)
    Exception.__init__(exc, "spend limit")
    exc.status_code = 429
    assert failures.translate(exc).retryable is False


@pytest.mark.timeout(900)
def test_real_llama_cpp_messages_api(llama_url: str, real_request: SummaryRequest) -> None:
    """llama.cpp's Anthropic-compatible /v1/messages, through the real anthropic SDK."""
    with AnthropicSummarizer(
        "smollm2",
        base_url=llama_url,
        timeout=LLAMA_TIMEOUT,
        max_retries=0,
        extra_body={"max_tokens": LLAMA_MAX_ANSWER},
    ) as summarizer:
        text = summarizer.summarize(real_request)
    assert isinstance(text, str) and text and text == text.strip()
