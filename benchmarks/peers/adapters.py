"""Run other frameworks' rolling-summary memories on one replay, through one interface.

This module runs only inside the isolated peers environment (``benchmarks/peers/setup.sh``
builds it); chatfold never imports it and none of the peers is a dependency of chatfold.

Every peer is wrapped as a :class:`PeerRunner`: feed it one OpenAI-format message at a time
with :meth:`PeerRunner.step` and it returns the context (OpenAI-format dicts) that the peer
would send to the model now. The summarizer under test is a plain function
``summarize(prompt_text) -> str``; each runner wraps it in the framework's own LLM interface
(a LangChain ``BaseChatModel``, a LlamaIndex ``CustomLLM``, a Semantic Kernel
``ChatCompletionClientBase``), flattens the chat request the framework builds into one text
with :func:`render_prompt`, and counts calls and tokens. Nothing touches the network.

How each peer is configured to approach "fold when the context exceeds ``trigger_tokens``,
keep the last ``keep`` messages verbatim" (read from the installed sources; see
``benchmarks/peers/README.md`` for the details and what cannot be matched):

* LangMem ``summarize_messages``: token trigger on the messages not yet summarized
  (``max_tokens_before_summary = trigger - max_summary_tokens - system``), one running summary;
  it has no "keep the last K" setting (``keep`` is ignored).
* LlamaIndex ``ChatSummaryMemoryBuffer``: ``token_limit = trigger`` with the system prompt
  counted as initial tokens; keeps as many recent messages as fit, summarizes the rest
  (``keep`` is ignored).
* Semantic Kernel ``ChatHistorySummarizationReducer``: message-count based
  (``target_count``); the runner calls ``reduce()`` only when the context exceeds
  ``trigger_tokens``, the way an application gates it, with ``target_count`` set so that
  ``keep`` messages stay verbatim after the system prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from typing import Any, ClassVar

Message = dict[str, Any]
Count = Callable[[str], int]
Summarize = Callable[[str], str]

PEER_PACKAGES: dict[str, tuple[str, ...]] = {
    "langmem": ("langmem", "langchain-core", "langgraph"),
    "llamaindex": ("llama-index-core",),
    "semantic-kernel": ("semantic-kernel",),
}
"""The distributions behind each peer, for reporting versions."""

DEFAULT_LANGMEM_SUMMARY_TOKENS = 256
"""LangMem's own default ``max_summary_tokens`` (a budget it reserves, not a cap)."""


# ---------------------------------------------------------------------------------------------
# message text, rendering and provider checks (chatfold's helpers when they import)


def _fallback_content_text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, Mapping):
                text = p.get("text")
                parts.append(text if isinstance(text, str) else f"[{p.get('type')}]")
        return "\n".join(t for t in parts if t)
    return str(content)


def _fallback_message_text(message: Message) -> str:
    pieces = [_fallback_content_text(message.get("content"))]
    if message.get("name"):
        pieces.append(str(message["name"]))
    for call in message.get("tool_calls") or ():
        fn = call.get("function") or {}
        pieces.append(f"[calls {fn.get('name')}({fn.get('arguments', '')}) id={call.get('id')}]")
    if message.get("role") == "tool":
        pieces.append(str(message.get("tool_call_id", "")))
    return "\n".join(p for p in pieces if p)


def _fallback_format(messages: Sequence[Message]) -> str:
    lines = []
    for m in messages:
        label = str(m.get("role"))
        if label == "tool":
            label = f"tool (id={m.get('tool_call_id')})"
        body = (
            _fallback_message_text(m)
            if m.get("role") != "tool"
            else _fallback_content_text(m.get("content"))
        )
        lines.append(f"{label}: {body}")
    return "\n".join(lines)


TEXT_SOURCE = "chatfold.messages"
"""Where message text and transcripts come from: chatfold's helpers, or this module's own."""

try:  # chatfold's own text, so peers and chatfold are counted and rendered alike
    from chatfold.messages import format_messages as _format_messages
    from chatfold.messages import message_text as _message_text
except ImportError:  # chatfold not installed in this environment (only ImportError: a
    # broken chatfold must fail loudly, not silently change how tokens are counted)
    _message_text = _fallback_message_text
    _format_messages = _fallback_format
    TEXT_SOURCE = "adapters fallback"


def message_text(message: Message) -> str:
    """Everything in ``message`` that a provider receives, as text (content, tool calls)."""
    return str(_message_text(message))


def render_prompt(messages: Sequence[Message]) -> str:
    """The chat request a framework sends to its summarizing LLM, flattened to one text."""
    return str(_format_messages(list(messages)))


def context_tokens(messages: Sequence[Message], count: Count) -> int:
    """Tokens of a context: the sum of ``count(message_text(m))`` over its messages."""
    return sum(count(message_text(m)) for m in messages)


def _call_ids(message: Message) -> list[str]:
    return [str(c.get("id")) for c in message.get("tool_calls") or ()]


def orphan_tool_results(messages: Sequence[Message]) -> list[int]:
    """Indices of ``tool`` messages whose ``tool_call_id`` is in no earlier assistant message's
    ``tool_calls`` in the same context: providers reject such a request (HTTP 400)."""
    seen: set[str] = set()
    orphans = []
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            seen.update(_call_ids(m))
        elif m.get("role") == "tool" and str(m.get("tool_call_id")) not in seen:
            orphans.append(i)
    return orphans


def dangling_tool_calls(messages: Sequence[Message]) -> list[int]:
    """Indices of assistant messages with a tool call answered by no ``tool`` message right
    after it, when a later non-tool message shows the answer will never come (OpenAI rejects
    this too). Calls still pending at the end of the context are not counted."""
    dangling = []
    for i, m in enumerate(messages):
        ids = set(_call_ids(m)) if m.get("role") == "assistant" else set()
        if not ids:
            continue
        j = i + 1
        while j < len(messages) and messages[j].get("role") == "tool":
            ids.discard(str(messages[j].get("tool_call_id")))
            j += 1
        if ids and j < len(messages):
            dangling.append(i)
    return dangling


def rejected_by_provider(messages: Sequence[Message]) -> bool:
    """Whether an OpenAI-compatible provider would reject this context for broken tool pairs."""
    return bool(orphan_tool_results(messages) or dangling_tool_calls(messages))


def peer_versions() -> dict[str, str]:
    """Installed versions of the peers' distributions (missing ones are left out)."""
    out = {}
    for names in PEER_PACKAGES.values():
        for name in names:
            with contextlib.suppress(metadata.PackageNotFoundError):
                out[name] = metadata.version(name)
    return out


def _parse_args(arguments: object) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(str(arguments or "{}"))
    except ValueError:
        return {"_raw": arguments}
    return value if isinstance(value, dict) else {"_value": value}


def _args_json(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------
# the common interface


class CountingSummarizer:
    """Wraps ``summarize`` and records every call: the one LLM all peers share."""

    def __init__(self, summarize: Summarize, count: Count, keep_prompts: bool = False) -> None:
        self._summarize = summarize
        self._count = count
        self.keep_prompts = keep_prompts
        """Keep every prompt in ``all_prompts`` (to find messages no summarizer call saw)."""
        self.all_prompts: list[str] = []
        self.calls = 0
        """Number of summarizer calls."""
        self.input_tokens = 0
        """Tokens of every prompt text sent to the summarizer."""
        self.output_tokens = 0
        """Tokens of every summary returned."""
        self.seconds = 0.0
        """Wall time spent inside ``summarize``."""
        self.prompts: list[str] = []
        """The last few prompt texts, for inspection (bounded)."""

    def __call__(self, prompt_text: str) -> str:
        self.calls += 1
        self.input_tokens += self._count(prompt_text)
        if len(self.prompts) >= 3:
            self.prompts.pop(0)
        self.prompts.append(prompt_text)
        if self.keep_prompts:
            self.all_prompts.append(prompt_text)
        start = time.perf_counter()
        out = self._summarize(prompt_text)
        self.seconds += time.perf_counter() - start
        self.output_tokens += self._count(out)
        return out


class PeerRunner:
    """One peer's memory, fed message by message.

    Args:
        summarize: the summarizer under test, ``summarize(prompt_text) -> str``.
        trigger_tokens: fold when the context exceeds this many tokens (as each peer allows).
        keep: messages to keep verbatim after a fold (as each peer allows).
        count: the token counter, ``count(text) -> int``, used for every trigger decision.
        model_turns_only: when true, the peer's memory is only consulted (and may only fold)
            at a model turn: after a user message, or after the tool result that answers the
            last of the pending tool calls. Other steps return the previous context plus the
            new message, as the framework would hold it. When false (the default) every step
            is a model turn.
    """

    name: ClassVar[str] = "peer"

    def __init__(
        self,
        summarize: Summarize,
        trigger_tokens: int,
        keep: int,
        count: Count,
        *,
        model_turns_only: bool = False,
    ) -> None:
        self.summarizer = CountingSummarizer(summarize, count)
        self.trigger_tokens = trigger_tokens
        self.keep = keep
        self.count = count
        self.model_turns_only = model_turns_only
        self._pending: set[str] = set()
        self._context: list[Message] = []
        self.steps = 0
        """Messages fed so far."""
        self.model_turns = 0
        """Steps at which the peer's memory was consulted."""
        self.last_step_was_model_turn = False
        """Whether a model would be called with the context the last step returned."""
        self.framework_ns = 0
        """Nanoseconds spent in the framework's own calls (storing, consulting the memory)."""
        self._exported: dict[int, tuple[Any, Message]] = {}

    @property
    def calls(self) -> int:
        """Summarizer calls so far."""
        return self.summarizer.calls

    def is_model_turn(self, message: Message) -> bool:
        """Whether a model would be called right after ``message`` (updates pending calls)."""
        role = message.get("role")
        if role == "assistant":
            self._pending = set(_call_ids(message))
            return False
        if role == "tool":
            self._pending.discard(str(message.get("tool_call_id")))
            return not self._pending
        if role == "user":
            self._pending = set()
            return True
        return False

    def step(self, message: Message) -> list[Message]:
        """Append one message; return the context the peer would send to the model now.

        The returned dicts are shared between steps: do not mutate them.
        """
        self.steps += 1
        turn = self.is_model_turn(message)
        self.last_step_was_model_turn = turn
        native = self._native(message)
        start = time.perf_counter_ns()
        self._store(native)
        if self.model_turns_only and not turn:
            self.framework_ns += time.perf_counter_ns() - start
            self._context = [*self._context, *self._export([native])]
            return self._context
        self.model_turns += 1
        reduced = self._reduce()
        self.framework_ns += time.perf_counter_ns() - start
        self._context = self._export(reduced)
        return self._context

    @property
    def framework_us(self) -> float:
        """Microseconds spent in the framework so far, summarizer time excluded (the
        conversions to and from OpenAI dicts, which are the adapter's work, are not counted)."""
        return self.framework_ns / 1e3 - self.summarizer.seconds * 1e6

    def close(self) -> None:
        """Release resources (event loops)."""

    def __enter__(self) -> PeerRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _export(self, natives: Sequence[Any]) -> list[Message]:
        # Converting a framework message is the adapter's cost, so it is done once per object.
        out = []
        cache = self._exported
        for obj in natives:
            hit = cache.get(id(obj))
            if hit is None or hit[0] is not obj:
                hit = (obj, obj if isinstance(obj, dict) else self._to_openai(obj))
                cache[id(obj)] = hit  # the entry holds obj, so its id is never reused
            out.append(hit[1])
        return out

    # subclasses (abstract: each peer runner implements all four) -------------------------

    def _native(self, message: Message) -> Any:
        """``message`` as the framework's message type (the adapter's work, not timed)."""
        raise NotImplementedError

    def _store(self, native: Any) -> None:
        """Hand one message to the framework (timed)."""
        raise NotImplementedError

    def _reduce(self) -> list[Any]:
        """Consult the framework's memory, which may fold; the context it returns (timed)."""
        raise NotImplementedError

    def _to_openai(self, native: Any) -> Message:
        """One framework message as the framework's OpenAI connector would send it."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# LangMem


def _lc_to_openai(messages: Sequence[Any]) -> list[Message]:
    from langchain_core.messages import convert_to_openai_messages

    return list(convert_to_openai_messages(list(messages)))


def _lc_text(message: Any) -> str:
    # The text message_text() gives for the OpenAI form, without converting each time (and
    # without getattr on fields a message type lacks, which is slow on pydantic models).
    content = message.content
    pieces = [content if isinstance(content, str) else _fallback_content_text(content)]
    kind = message.type
    if kind == "ai":
        for call in message.tool_calls:
            args = json.dumps(call.get("args", {}), ensure_ascii=False)
            pieces.append(f"[calls {call.get('name')}({args}) id={call.get('id')}]")
    elif kind == "tool":
        pieces.append(str(message.tool_call_id))
    return "\n".join(p for p in pieces if p)


class LangMemRunner(PeerRunner):
    """LangMem's ``summarize_messages`` (``langmem.short_term``), as ``SummarizationNode``
    runs it: the whole history and the running summary go in on every model turn.

    Args:
        max_summary_tokens: the summary budget LangMem reserves (default: its own 256, or half
            the trigger when that is smaller).
        max_tokens_before_summary: override LangMem's trigger (default: ``trigger_tokens``
            minus the summary budget minus the system prompt, so that the whole context, not
            only its unsummarized part, is what crosses ``trigger_tokens``).
    """

    name = "langmem"

    def __init__(
        self,
        summarize: Summarize,
        trigger_tokens: int,
        keep: int,
        count: Count,
        *,
        model_turns_only: bool = False,
        max_summary_tokens: int | None = None,
        max_tokens_before_summary: int | None = None,
    ) -> None:
        super().__init__(summarize, trigger_tokens, keep, count, model_turns_only=model_turns_only)
        with warnings.catch_warnings():
            # langmem imports trustcall, which imports a name LangGraph has deprecated
            warnings.simplefilter("ignore")
            from langchain_core.language_models import BaseChatModel
            from langchain_core.messages import AIMessage, convert_to_messages
            from langchain_core.outputs import ChatGeneration, ChatResult
            from langmem.short_term import summarize_messages

        summarizer = self.summarizer

        class SummarizerChatModel(BaseChatModel):
            """A LangChain chat model whose reply is ``summarize(rendered request)``."""

            @property
            def _llm_type(self) -> str:
                return "chatfold-bench-summarizer"

            def _generate(
                self,
                messages: list[Any],
                stop: list[str] | None = None,
                run_manager: Any = None,
                **kwargs: Any,
            ) -> Any:
                reply = summarizer(render_prompt(_lc_to_openai(messages)))
                return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])

        self._summarize_messages = summarize_messages
        self._convert_to_messages = convert_to_messages
        self._model = SummarizerChatModel()
        self._messages: list[Any] = []
        self._running: Any = None
        self._summary_budget = max_summary_tokens or min(
            DEFAULT_LANGMEM_SUMMARY_TOKENS, max(1, trigger_tokens // 2)
        )
        self._before = max_tokens_before_summary
        self._counts: dict[int, tuple[Any, int]] = {}

    def _token_counter(self, messages: Any) -> int:
        # LangMem recounts the whole unsummarized history on every turn; the counts are cached
        # per message object (as chatfold caches them), so the overhead column measures
        # LangMem, not an uncached o200k counter.
        cache = self._counts
        total = 0
        for m in messages:
            hit = cache.get(id(m))
            if hit is None or hit[0] is not m:
                hit = (m, self.count(_lc_text(m)))
                cache[id(m)] = hit  # holds m, so its id is never reused while cached
            total += hit[1]
        return total

    def _native(self, message: Message) -> Any:
        (lc,) = self._convert_to_messages([message])
        lc.id = f"m{self.steps}"  # LangMem tracks what it summarized by message id
        return lc

    def _store(self, native: Any) -> None:
        self._messages.append(native)  # the graph state's "messages" list

    def _to_openai(self, native: Any) -> Message:
        return _lc_to_openai([native])[0]

    def _reduce(self) -> list[Any]:
        before = self._before
        if before is None:
            system = 0
            if self._messages and self._messages[0].type == "system":
                system = self._token_counter(self._messages[:1])
            before = max(1, self.trigger_tokens - self._summary_budget - system)
        result = self._summarize_messages(
            self._messages,
            running_summary=self._running,
            model=self._model,
            max_tokens=self.trigger_tokens,
            max_tokens_before_summary=before,
            max_summary_tokens=self._summary_budget,
            token_counter=self._token_counter,
        )
        if result.running_summary is not None:
            self._running = result.running_summary
        return list(result.messages)


# ---------------------------------------------------------------------------------------------
# LlamaIndex


def _li_from_openai(message: Message) -> Any:
    # The shape llama-index-llms-openai builds (from_openai_message / FunctionAgent):
    # tool calls as ToolCallBlocks plus additional_kwargs["tool_calls"], results with
    # additional_kwargs["tool_call_id"].
    from llama_index.core.base.llms.types import (
        ChatMessage,
        MessageRole,
        TextBlock,
        ToolCallBlock,
    )

    role = MessageRole(message["role"])
    text = _fallback_content_text(message.get("content"))
    blocks: list[Any] = [TextBlock(text=text)] if text else []
    kwargs: dict[str, Any] = {}
    calls = message.get("tool_calls") or []
    for call in calls:
        fn = call.get("function") or {}
        blocks.append(
            ToolCallBlock(
                tool_call_id=call.get("id"),
                tool_name=fn.get("name") or "",
                tool_kwargs=fn.get("arguments") or {},
            )
        )
    if calls:
        kwargs["tool_calls"] = [dict(c) for c in calls]
    if message.get("role") == "tool":
        kwargs["tool_call_id"] = message.get("tool_call_id")
        if not blocks:
            blocks = [TextBlock(text="")]
    if message.get("name"):
        # The speaker's name rides in additional_kwargs, which to_openai_message_dict sends.
        kwargs["name"] = message["name"]
    return ChatMessage(role=role, blocks=blocks, additional_kwargs=kwargs)


def _li_to_openai(message: Any) -> Message:
    # As llama-index-llms-openai's to_openai_message_dict sends it.
    role = message.role.value
    out: Message = {"role": role, "content": message.content}
    calls = message.additional_kwargs.get("tool_calls")
    if calls is None:
        calls = [
            {
                "id": b.tool_call_id,
                "type": "function",
                "function": {"name": b.tool_name, "arguments": _args_json(b.tool_kwargs)},
            }
            for b in message.blocks
            if getattr(b, "block_type", None) == "tool_call"
        ]
    if calls:
        out["tool_calls"] = [dict(c) for c in calls]
    if role == "tool":
        out["tool_call_id"] = message.additional_kwargs.get("tool_call_id")
        if out["content"] is None:
            out["content"] = ""
    if message.additional_kwargs.get("name"):
        out["name"] = message.additional_kwargs["name"]
    return out


class LlamaIndexRunner(PeerRunner):
    """LlamaIndex's deprecated ``ChatSummaryMemoryBuffer`` (kept for comparison; the benchmark
    runs :class:`LlamaIndexMemoryRunner`, its current ``Memory``): ``put`` every message,
    ``get`` on every model turn. Leading system messages stay outside the memory and are
    prepended, as LlamaIndex agents do with their system prompt, and count as the memory's
    initial tokens.
    """

    name = "llamaindex-summary-buffer"

    def __init__(
        self,
        summarize: Summarize,
        trigger_tokens: int,
        keep: int,
        count: Count,
        *,
        model_turns_only: bool = False,
    ) -> None:
        super().__init__(summarize, trigger_tokens, keep, count, model_turns_only=model_turns_only)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from llama_index.core.base.llms.types import (
                ChatMessage,
                ChatResponse,
                CompletionResponse,
                LLMMetadata,
                MessageRole,
            )
            from llama_index.core.llms import CustomLLM
            from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
            from llama_index.core.memory import ChatSummaryMemoryBuffer

        summarizer = self.summarizer

        class SummarizerLLM(CustomLLM):
            """A LlamaIndex LLM whose reply is ``summarize(rendered request)``."""

            @property
            def metadata(self) -> LLMMetadata:
                return LLMMetadata(model_name="chatfold-bench-summarizer", is_chat_model=True)

            @llm_chat_callback()
            def chat(self, messages: Sequence[Any], **kwargs: Any) -> Any:
                reply = summarizer(render_prompt([_li_to_openai(m) for m in messages]))
                return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=reply))

            @llm_completion_callback()
            def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
                return CompletionResponse(text=summarizer(prompt))

            @llm_completion_callback()
            def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
                text = summarizer(prompt)
                yield CompletionResponse(text=text, delta=text)

        count_fn = count

        def tokenizer_fn(text: str) -> range:
            # LlamaIndex only needs len(tokenizer_fn(text))
            return range(count_fn(text))

        self._memory = ChatSummaryMemoryBuffer.from_defaults(
            llm=SummarizerLLM(),
            token_limit=trigger_tokens,
            tokenizer_fn=tokenizer_fn,
            count_initial_tokens=True,
        )
        self._pinned: list[Message] = []
        self._pinned_tokens = 0
        self._started = False

    def _native(self, message: Message) -> Any:
        if not self._started and message.get("role") == "system":
            # the agent's system prompt: kept outside the memory, passed as a plain dict
            self._pinned_tokens += self.count(message_text(message))
            return dict(message)
        self._started = True
        return _li_from_openai(message)

    def _store(self, native: Any) -> None:
        if isinstance(native, dict):
            self._pinned.append(native)
        else:
            self._memory.put(native)

    def _to_openai(self, native: Any) -> Message:
        return _li_to_openai(native)

    def _reduce(self) -> list[Any]:
        history = self._memory.get(initial_token_count=self._pinned_tokens)
        return [*self._pinned, *history]


_FACT = re.compile(r"(?<=[.!?])\s+|\n+")


def as_facts(summary: str) -> str:
    """A summary in the ``<facts><fact>...</fact></facts>`` form LlamaIndex's fact block
    parses: one fact per sentence, as an LLM following its prompt would write them."""
    facts = [f.strip(" -*") for f in _FACT.split(summary)]
    body = "".join(f"<fact>{f}</fact>" for f in facts if f)
    return f"<facts>{body}</facts>"


class LlamaIndexMemoryRunner(PeerRunner):
    """LlamaIndex's current ``Memory`` (``llama_index.core.memory.Memory``), configured as its
    documentation shows: a short-term FIFO queue of ``token_limit`` tokens, of which
    ``chat_history_token_ratio`` (0.7, the default) is chat history; when the history exceeds
    that, the oldest ``token_flush_size`` tokens (10% of the limit, the validator's default)
    are flushed, in whole turns, into a ``FactExtractionMemoryBlock`` (the long-term block that
    calls an LLM: it extracts facts from the flushed messages, and condenses them when there
    are more than ``max_facts``, 50 by default; ``priority=1`` as in the docs' example, so it
    may be truncated to fit ``token_limit``). ``get()`` returns the queue with the facts
    inserted into a system message. ``token_limit`` is the trigger; the shared summarizer's
    reply is written as ``<fact>`` tags, one per sentence (what the fact prompt asks for).
    Leading system messages stay outside the memory, as LlamaIndex agents hold their prompt.
    """

    name = "llamaindex"

    def __init__(
        self,
        summarize: Summarize,
        trigger_tokens: int,
        keep: int,
        count: Count,
        *,
        model_turns_only: bool = False,
    ) -> None:
        super().__init__(summarize, trigger_tokens, keep, count, model_turns_only=model_turns_only)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from llama_index.core.base.llms.types import (
                ChatMessage,
                ChatResponse,
                CompletionResponse,
                LLMMetadata,
                MessageRole,
            )
            from llama_index.core.llms import CustomLLM
            from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
            from llama_index.core.memory import FactExtractionMemoryBlock, Memory

        summarizer = self.summarizer

        class SummarizerLLM(CustomLLM):
            """A LlamaIndex LLM whose reply is ``summarize(rendered request)``, as facts."""

            @property
            def metadata(self) -> LLMMetadata:
                return LLMMetadata(model_name="chatfold-bench-summarizer", is_chat_model=True)

            @llm_chat_callback()
            def chat(self, messages: Sequence[Any], **kwargs: Any) -> Any:
                reply = summarizer(render_prompt([_li_to_openai(m) for m in messages]))
                return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT,
                                                        content=as_facts(reply)))

            @llm_completion_callback()
            def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
                return CompletionResponse(text=as_facts(summarizer(prompt)))

            @llm_completion_callback()
            def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
                text = as_facts(summarizer(prompt))
                yield CompletionResponse(text=text, delta=text)

        count_fn = count

        def tokenizer_fn(text: str) -> range:
            return range(count_fn(text))  # LlamaIndex only needs len(tokenizer_fn(text))

        self._memory = Memory.from_defaults(
            token_limit=trigger_tokens,
            token_flush_size=max(1, trigger_tokens // 10),
            tokenizer_fn=tokenizer_fn,
            memory_blocks=[FactExtractionMemoryBlock(name="extracted_info", llm=SummarizerLLM(),
                                                     priority=1)],
        )
        self._pinned: list[Message] = []
        self._started = False

    def _native(self, message: Message) -> Any:
        if not self._started and message.get("role") == "system":
            return dict(message)  # the agent's system prompt, outside the memory
        self._started = True
        return _li_from_openai(message)

    def _store(self, native: Any) -> None:
        if isinstance(native, dict):
            self._pinned.append(native)
        else:
            self._memory.put(native)

    def _to_openai(self, native: Any) -> Message:
        return _li_to_openai(native)

    def _reduce(self) -> list[Any]:
        return [*self._pinned, *self._memory.get()]


# ---------------------------------------------------------------------------------------------
# Semantic Kernel


class SemanticKernelRunner(PeerRunner):
    """Semantic Kernel's ``ChatHistorySummarizationReducer`` (single summary, defaults kept).

    Semantic Kernel counts messages, not tokens. The runner keeps a running token total of
    the history and awaits ``reduce()`` when it exceeds ``trigger_tokens`` (the documented
    pattern: the application decides when to call ``reduce``), with ``target_count`` set so
    that ``keep`` messages stay verbatim besides the preserved system prompt.

    Args:
        include_function_content: Semantic Kernel's ``include_function_content_in_summary``
            (default False, as in Semantic Kernel: tool calls and results are left out of
            the text sent to the summarizer).
        token_gate: when false, use Semantic Kernel's own ``auto_reduce`` trigger on message
            count (``threshold_count`` = ``keep``) and ignore ``trigger_tokens``.
    """

    name = "semantic-kernel"

    def __init__(
        self,
        summarize: Summarize,
        trigger_tokens: int,
        keep: int,
        count: Count,
        *,
        model_turns_only: bool = False,
        include_function_content: bool = False,
        token_gate: bool = True,
    ) -> None:
        super().__init__(summarize, trigger_tokens, keep, count, model_turns_only=model_turns_only)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from semantic_kernel.connectors.ai.chat_completion_client_base import (
                ChatCompletionClientBase,
            )
            from semantic_kernel.contents import ChatMessageContent
            from semantic_kernel.contents.history_reducer.chat_history_summarization_reducer import (  # noqa: E501
                ChatHistorySummarizationReducer,
            )
            from semantic_kernel.contents.utils.author_role import AuthorRole

        summarizer = self.summarizer

        class SummarizerService(ChatCompletionClientBase):  # type: ignore[misc]
            """A Semantic Kernel chat service whose reply is ``summarize(rendered request)``."""

            async def _inner_get_chat_message_contents(
                self, chat_history: Any, settings: Any
            ) -> list[Any]:
                request = self._prepare_chat_history_for_request(chat_history)
                reply = summarizer(render_prompt(request))
                return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=reply)]

        self._history = ChatHistorySummarizationReducer(
            service=SummarizerService(ai_model_id="chatfold-bench-summarizer"),
            target_count=keep + 1,  # adjusted on the first message (system prompt or not)
            threshold_count=0 if token_gate else keep,
            auto_reduce=False,
            include_function_content_in_summary=include_function_content,
        )
        self._token_gate = token_gate
        self._loop = asyncio.new_event_loop()
        self._tokens = 0
        self._tool_names: dict[str, str] = {}

    def close(self) -> None:
        self._loop.close()

    def _sk_message(self, message: Message) -> Any:
        from semantic_kernel.contents import (
            ChatMessageContent,
            FunctionCallContent,
            FunctionResultContent,
            TextContent,
        )
        from semantic_kernel.contents.utils.author_role import AuthorRole

        role = AuthorRole(message["role"])
        text = _fallback_content_text(message.get("content"))
        if message.get("role") == "tool":
            call_id = str(message.get("tool_call_id"))
            result = FunctionResultContent(
                id=call_id, name=self._tool_names.get(call_id, "tool"), result=text
            )
            return ChatMessageContent(role=role, items=[result])
        items: list[Any] = []
        # The order Semantic Kernel's OpenAI connector builds: tool calls first, then text.
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or {}
            self._tool_names[str(call.get("id"))] = str(fn.get("name"))
            items.append(
                FunctionCallContent(
                    id=call.get("id"), name=fn.get("name"), arguments=fn.get("arguments")
                )
            )
        if text or not items:
            items.append(TextContent(text=text))
        # ChatMessageContent carries the speaker's name and its OpenAI connector sends it.
        return ChatMessageContent(role=role, items=items, name=message.get("name"))

    def _to_openai(self, native: Any) -> Message:
        # ChatMessageContent.to_dict() is what Semantic Kernel's OpenAI connector sends.
        return dict(native.to_dict())

    def _native(self, message: Message) -> Any:
        if self.steps == 1 and message.get("role") not in ("system", "developer"):
            # No system prompt: target_count is the number of messages kept verbatim.
            self._history.target_count = self.keep
        return self._sk_message(message)

    def _store(self, native: Any) -> None:
        self._history.add_message(native)
        # the application's running token total (Semantic Kernel itself counts no tokens)
        self._tokens += self.count(message_text(self._export([native])[0]))

    def _reduce(self) -> list[Any]:
        history = self._history
        due = (
            self._tokens > self.trigger_tokens
            if self._token_gate
            else len(history.messages) > history.target_count + history.threshold_count
        )
        if due and self._loop.run_until_complete(history.reduce()) is not None:
            self._tokens = sum(self.count(message_text(m)) for m in self._export(history.messages))
        return list(history.messages)


# ---------------------------------------------------------------------------------------------


PEERS: dict[str, type[PeerRunner]] = {
    LangMemRunner.name: LangMemRunner,
    LlamaIndexMemoryRunner.name: LlamaIndexMemoryRunner,
    SemanticKernelRunner.name: SemanticKernelRunner,
}
"""Every peer runner by name."""


def peer_import_errors() -> dict[str, str | None]:
    """For each peer, ``None`` if it imports, else the exact import error."""
    probes = {
        "langmem": "langmem.short_term",
        "llamaindex": "llama_index.core.memory",
        "semantic-kernel": (
            "semantic_kernel.contents.history_reducer.chat_history_summarization_reducer"
        ),
    }
    out: dict[str, str | None] = {}
    for name, module in probes.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                __import__(module)
        except Exception as exc:  # report any failure verbatim: that is the point
            out[name] = f"{type(exc).__name__}: {exc}"
        else:
            out[name] = None
    return out
