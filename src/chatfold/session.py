"""A persistent conversation: an append-only log, one rolling summary, background folding.

A conversation is an append-only **log** of raw messages with sequence numbers plus a **fold
state** (:class:`~chatfold.FoldState`: the summary and the sequence number it covers). The
context for the next model call is::

    system prompt + pinned log entries + the summary + every log entry after covered_through

A fold summarizes the next run of entries and advances the state with a compare-and-set on
its version. Appends never touch the fold state, so writers and folds never conflict and no
message is ever lost; the log is never rewritten, so :meth:`Conversation.transcript` is
always complete and a conversation can be re-folded from scratch.

Example:
    >>> from chatfold import Policy
    >>> from chatfold.stores import MemoryStore
    >>> conv = Conversation("demo", store=MemoryStore(), system="You are terse.",
    ...                     policy=Policy(trigger_tokens=400, target_tokens=250,
    ...                                   summary_max_tokens=100))
    >>> for i in range(60):
    ...     _ = conv.append({"role": "user", "content": f"My order #{1000 + i} is late."})
    >>> context = conv.context()              # provider-ready, within the budget
    >>> context[0]["content"], context[1]["content"][:38]
    ('You are terse.', 'Summary of the earlier conversation: F')
    >>> len(conv.transcript())                # nothing is ever lost
    61
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ._conversation import (
    DEFAULT_LEASE_SECONDS,
    ConversationStats,
    _ConversationCore,
    _Steps,
)
from ._errors import InvalidArgumentError
from .fold import FoldResult
from .recall import (
    Recall,
    RecallTool,
    arun_recall,
    can_search,
    check_tool_args,
    latest_user_text,
    run_recall,
    tool_schemas,
    tool_text,
)

if TYPE_CHECKING:
    from .stores.base import LogEntry
    from .stores.state import FoldState

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "AsyncConversation",
    "Conversation",
    "ConversationStats",
    "default_store_path",
]


def default_store_path() -> Path:
    """Where the default SQLite store lives: ``$CHATFOLD_DB`` or ``~/.chatfold/chatfold.db``."""
    from .stores import default_store_path as path

    return path()


_T = TypeVar("_T")
_NO_RECALL = Recall()


class _BaseConversation(_ConversationCore):
    """The shared core (:mod:`chatfold._conversation`) plus recall: what a context recalls
    from the archive and the recall tool's arguments (see :mod:`chatfold.recall`)."""

    def _raw_placed(self) -> list[Any]:
        """The raw context with the recall message (if any) right after the summary."""
        with self._lock:
            recall = [] if self._recall.message is None else [self._recall.message]
            return [*self.system, *self._head_msgs, *recall, *self._tail_msgs]

    def _recall_args(self, query: str | None) -> dict[str, Any] | None:
        """What this context's recall searches for, or None when there is nothing to do (the
        result is then kept as is, or cleared). See :mod:`chatfold.recall`."""
        if not self.policy.recall_tokens and query is None:
            self._recall, self._recall_key = _NO_RECALL, None  # off: not even a query to read
            return None
        with self._lock:
            state = self._state
            text = query if query is not None else latest_user_text(self._tail_msgs)
            key = (state.version, state.covered_through, text)
            if not self.policy.recall_tokens or state.covered_through <= 0 or not text.strip():
                self._recall, self._recall_key = Recall(query=text), None
                return None
            if key == self._recall_key:
                return None  # same archive, same query: the same recall
            if not can_search(self.store):
                raise InvalidArgumentError(
                    "store", f"{type(self.store).__name__} has no search index (search and "
                    "entries_at); Policy.recall_tokens needs one, as every built-in store has")
            self._recall_key = key
            lang = state.language if state.language in ("zh", "en") else "en"
            return {"query": text, "through_seq": state.covered_through,
                    "excluded": state.pinned_seqs, "budget": self.policy.recall_tokens,
                    "counter": self.counter, "language": lang, "summary": state.summary}

    def _tool_args(self, query: object, limit: object) -> dict[str, Any]:
        text, n = check_tool_args(query, limit)
        with self._lock:
            state = self._state
            lang = state.language if state.language in ("zh", "en") else "en"
            return {"query": text, "through_seq": state.covered_through,
                    "excluded": state.pinned_seqs, "max_hits": n,
                    "budget": max(self.policy.recall_tokens or 0, 400 * n),
                    "counter": self.counter, "language": lang, "summary": ""}

    @property
    def last_recall(self) -> Recall:
        """What the last ``context()`` recalled (see :class:`chatfold.recall.Recall`)."""
        return self._recall


class Conversation(_BaseConversation):
    """A stored conversation folded within a budget (sync; see :class:`AsyncConversation`).

    Args:
        conversation_id: The conversation's id in the store (``[A-Za-z0-9_.:@-]``, 1-200).
        store: Where the log and fold state live (default: SQLite at
            :func:`default_store_path`).
        summarizer: What writes the summary (default: the offline ``ExtractiveSummarizer``).
        policy: When to fold and what to keep (default ``Policy()``).
        system: The system prompt (a string or messages), pinned, never stored or folded.
        counter: Token counter (default: the heuristic).
        fold_mode: ``"inline"`` folds inside :meth:`context` (the seed's way);
            ``"background"`` returns the current context at once and folds in a thread.
        hard_limit_tokens: In background mode, a context above this waits for the fold
            (default: trigger + half the trigger-target gap).
        lease_seconds: How long a fold may hold the conversation's fold lease; a process
            that dies mid-fold blocks other folds of that conversation at most this long.
    """

    def __init__(self, conversation_id: str, **kwargs: Any) -> None:
        super().__init__(conversation_id, **kwargs)
        self._worker: threading.Thread | None = None
        self._fold_lock = threading.Lock()

    def _run(self, steps: _Steps[_T]) -> _T:
        """Drive a protocol generator, running each call it yields."""
        try:
            call = steps.send(None)
            while True:
                try:
                    reply = call.run()
                except BaseException as exc:
                    error = exc
                else:
                    call = steps.send(reply)
                    continue
                # Thrown in outside the handler (no chained context): the protocol decides
                # (and releases).
                call = steps.throw(error)
        except StopIteration as stop:  # the protocol returned
            return stop.value  # type: ignore[no-any-return]

    def _read(self, after: int, limit: int | None) -> tuple[FoldState, list[LogEntry]]:
        """The fold state, then the log entries after ``after``: a turn's reads, one step."""
        return (self.store.load_state(self.conversation_id),
                self.store.entries(self.conversation_id, after=after, limit=limit))

    def _locked(self, steps: _Steps[_T]) -> _T:
        with self._fold_lock:
            return self._run(steps)

    def append(self, message: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[int]:
        """Append one message or several to the log (atomically); returns their seqs.

        SDK message objects (e.g. ``response.choices[0].message`` from the OpenAI SDK) are
        accepted and stored as their ``model_dump(exclude_none=True)``.

        Raises:
            InvalidMessageError: a message is malformed (nothing is appended).
        """
        return self._run(self._append_steps(message))

    def context(self, *, query: str | None = None) -> list[dict[str, Any]]:
        """The messages to send next, provider-safe (OpenAI format), within the budget.

        Inline mode folds here when over the trigger; background mode starts a fold in a
        thread and returns at once (unless over ``hard_limit_tokens``). With recall on (by
        default: ``Policy.recall_tokens`` auto, a quarter of the trigger; 0 turns it off),
        the archived messages that best match ``query`` (default: the latest user message)
        follow the summary as one system message.

        Raises:
            ContextOverflowError: pinned + latest unit exceed the target (policy permitting).
            SummarizerError: an inline fold failed (policy ``on_error="raise"``).
        """
        self._run(self._settle_steps())
        self._run_recall(query)
        return self._exported()

    def raw_context(self, *, query: str | None = None) -> list[Any]:
        """Like :meth:`context` but with the summary's ``is_summary`` (and the recall
        message's ``is_recall``) marker kept (for :func:`~chatfold.to_anthropic` or
        inspection)."""
        self._run(self._settle_steps())
        self._run_recall(query)
        return self._raw_placed()

    def _run_recall(self, query: str | None) -> None:
        args = self._recall_args(query)
        if args is not None:
            self._recall = run_recall(self.store, self.conversation_id, **args)

    def recall_tool(self) -> RecallTool:
        """``search_conversation_history`` for an agent: OpenAI and Anthropic schemas plus a
        handler searching the folded-away messages (see :class:`chatfold.recall.RecallTool`)."""
        openai, anthropic = tool_schemas()

        def handler(query: str, limit: int = 5) -> str:
            self._run(self._refresh_steps())
            args = self._tool_args(query, limit)
            return tool_text(run_recall(self.store, self.conversation_id, **args),
                             args["language"])

        async def ahandler(query: str, limit: int = 5) -> str:
            return await asyncio.to_thread(handler, query, limit)

        return RecallTool(openai=openai, anthropic=anthropic, handler=handler,
                          ahandler=ahandler)

    def fold(self, *, force: bool = False) -> FoldResult:
        """Fold now if the policy says so (or ``force``); returns what happened.

        Only one fold per conversation runs at a time, across processes: a fold that finds
        another one running returns ``reason="fold_in_progress"`` without calling the
        summarizer, and a fold whose compare-and-set loses is discarded
        (``reason="fold_conflict"``, the context as the winning fold left it).
        """
        return self._locked(self._fold_steps(force))

    def _start_background(self) -> None:
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(
                target=self._run, args=(self._background_steps(),),
                name=f"chatfold-fold-{self.conversation_id}", daemon=True,
            )
            self._worker.start()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a pending background fold to finish."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def transcript(self) -> list[dict[str, Any]]:
        """Every message ever appended, in order, with the system prompt first (lossless)."""
        return self._run(self._transcript_steps())

    def stats(self) -> ConversationStats:
        """Tokens by part and folding costs."""
        self._run(self._refresh_steps())
        worker = self._worker
        return self._stats(worker is not None and worker.is_alive())

    def refold(self) -> FoldResult:
        """Forget the summary and fold the whole log again (e.g. with a better summarizer),
        replaying it entry by entry so that each summarizer call sees about one trigger's
        worth of messages, as the original folds did. The log is untouched.

        Returns:
            The last fold's result (``folded=False`` when the log fits under the trigger).
        """
        return self._run(self._refold_steps())

    def close(self) -> None:
        """Wait for a pending fold and close the store."""
        self.wait()
        self.store.close()

    def __enter__(self) -> Conversation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncConversation(_BaseConversation):
    """The async twin of :class:`Conversation` (same arguments). Background folds run as
    tasks on the running loop; nothing here blocks the loop."""

    def __init__(self, conversation_id: str, **kwargs: Any) -> None:
        super().__init__(conversation_id, **kwargs)
        self._task: asyncio.Task[None] | None = None
        self._afold_lock: asyncio.Lock | None = None

    async def _arun(self, steps: _Steps[_T]) -> _T:
        """Drive a protocol generator, awaiting each call it yields."""
        try:
            call = steps.send(None)
            while True:
                try:
                    reply = await call.arun()
                except BaseException as exc:
                    error = exc
                else:
                    call = steps.send(reply)
                    continue
                # Thrown in outside the handler (no chained context): the protocol decides
                # (and releases).
                call = steps.throw(error)
        except StopIteration as stop:  # the protocol returned
            return stop.value  # type: ignore[no-any-return]

    async def _aread(self, after: int, limit: int | None) -> tuple[FoldState, list[LogEntry]]:
        """Async :meth:`Conversation._read`."""
        return (await self.store.aload_state(self.conversation_id),
                await self.store.aentries(self.conversation_id, after=after, limit=limit))

    async def _alocked(self, steps: _Steps[_T]) -> _T:
        if self._afold_lock is None:
            self._afold_lock = asyncio.Lock()
        async with self._afold_lock:
            return await self._arun(steps)

    async def aappend(self, message: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[int]:
        """Async :meth:`Conversation.append`."""
        return await self._arun(self._append_steps(message))

    async def acontext(self, *, query: str | None = None) -> list[dict[str, Any]]:
        """Async :meth:`Conversation.context`."""
        await self._arun(self._settle_steps())
        await self._arun_recall(query)
        return self._exported()

    async def araw_context(self, *, query: str | None = None) -> list[Any]:
        """Async :meth:`Conversation.raw_context`."""
        await self._arun(self._settle_steps())
        await self._arun_recall(query)
        return self._raw_placed()

    async def _arun_recall(self, query: str | None) -> None:
        args = self._recall_args(query)
        if args is not None:
            self._recall = await arun_recall(self.store, self.conversation_id, **args)

    def recall_tool(self) -> RecallTool:
        """Async :meth:`Conversation.recall_tool`: use ``ahandler`` on the event loop
        (``handler`` uses the store's sync methods, for a worker thread)."""
        openai, anthropic = tool_schemas()

        async def ahandler(query: str, limit: int = 5) -> str:
            await self._arun(self._refresh_steps())
            args = self._tool_args(query, limit)
            return tool_text(await arun_recall(self.store, self.conversation_id, **args),
                             args["language"])

        def handler(query: str, limit: int = 5) -> str:
            args = self._tool_args(query, limit)
            return tool_text(run_recall(self.store, self.conversation_id, **args),
                             args["language"])

        return RecallTool(openai=openai, anthropic=anthropic, handler=handler,
                          ahandler=ahandler)

    async def afold(self, *, force: bool = False) -> FoldResult:
        """Async :meth:`Conversation.fold`."""
        return await self._alocked(self._fold_steps(force))

    async def _astart_background(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._arun(self._background_steps()))

    async def await_fold(self) -> None:
        """Wait for a pending background fold to finish."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def atranscript(self) -> list[dict[str, Any]]:
        """Async :meth:`Conversation.transcript`."""
        return await self._arun(self._transcript_steps())

    async def astats(self) -> ConversationStats:
        """Async :meth:`Conversation.stats`."""
        await self._arun(self._refresh_steps())
        return self._stats(self._task is not None and not self._task.done())

    async def arefold(self) -> FoldResult:
        """Async :meth:`Conversation.refold`."""
        return await self._arun(self._refold_steps())

    async def aclose(self) -> None:
        """Wait for a pending fold and close the store."""
        await self.await_fold()
        await self.store.aclose()
