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
import logging
import os
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._errors import FoldConflictError, InvalidMessageError, SummarizerError
from .fold import (
    Folder,
    FoldPlan,
    FoldResult,
    FoldState,
    Policy,
    Reason,
    summary_message,
)
from .messages import (
    is_tool_result,
    to_openai,
    to_openai_message,
    tool_call_ids,
    tool_result_ids,
    validate_message,
)
from .recall import (
    Recall,
    RecallTool,
    arun_recall,
    check_tool_args,
    latest_user_text,
    run_recall,
    tool_schemas,
    tool_text,
)
from .tokens import TokenCounter

if TYPE_CHECKING:
    from typing import Protocol

    from .stores.base import AsyncStore, LogEntry, Store

    class _FullStore(Store, AsyncStore, Protocol):
        """A store with both the sync methods and their async twins (every built-in)."""

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "AsyncConversation",
    "Conversation",
    "ConversationStats",
    "default_store_path",
]

logger = logging.getLogger("chatfold")

FoldMode = Literal["inline", "background"]

DEFAULT_LEASE_SECONDS = 300.0
"""A fold lease expires after this long, so a crashed folder never blocks folding for good."""
DEFAULT_RETRY_SECONDS = 30.0
"""After a failed background fold, wait this long before trying again."""


def default_store_path() -> Path:
    """Where the default SQLite store lives: ``$CHATFOLD_DB`` or ``~/.chatfold/chatfold.db``."""
    env = os.environ.get("CHATFOLD_DB")
    return Path(env) if env else Path.home() / ".chatfold" / "chatfold.db"


@dataclass(frozen=True)
class ConversationStats:
    """Where a conversation's tokens go, and what folding has cost so far."""

    pinned_tokens: int
    """System prompt plus pinned log entries."""
    summary_tokens: int
    """The summary message."""
    recent_tokens: int
    """Log entries after the summary."""
    total_tokens: int
    """What :meth:`Conversation.context` sends."""
    logged_messages: int
    """Messages in the log (the whole transcript)."""
    context_messages: int
    """Messages in the context."""
    folds: int
    """Folds done."""
    summarizer_calls: int
    """Summarizer calls made (re-asks included)."""
    last_fold_seconds: float | None
    """Duration of the last fold."""
    fold_pending: bool
    """A background fold is running."""
    last_error: str | None
    """The last background fold's error, if it failed."""
    recall_tokens: int = 0
    """Tokens of the recall message the last ``context()`` placed (not in ``total_tokens``)."""
    recalled: tuple[int, ...] = ()
    """Log entries (seqs) the last ``context()`` recalled."""


class _BaseConversation:
    """What the sync and async conversations share: the cached tail and the bookkeeping.

    No I/O here: the twins fetch from the store and call the summarizer.
    """

    def __init__(
        self,
        conversation_id: str,
        *,
        store: Any = None,
        summarizer: object = None,
        policy: Policy | None = None,
        system: str | Sequence[Mapping[str, Any]] | None = None,
        counter: TokenCounter | None = None,
        fold_mode: FoldMode = "inline",
        hard_limit_tokens: int | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        if fold_mode not in ("inline", "background"):
            raise ValueError("fold_mode must be 'inline' or 'background'")
        if store is None:
            from .stores.sqlite import SQLiteStore

            path = default_store_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            store = SQLiteStore(str(path))
        if summarizer is None:
            from .summarizers.extractive import ExtractiveSummarizer

            summarizer = ExtractiveSummarizer()
        self.conversation_id = conversation_id
        self.store: _FullStore = store
        self.policy = policy if policy is not None else Policy()
        self.folder = Folder(summarizer, self.policy, counter=counter)
        self.counter = self.folder.counter
        self.fold_mode = fold_mode
        self.lease_seconds = lease_seconds
        gap = self.policy.fold_trigger - self.policy.target
        self.hard_limit_tokens = (
            hard_limit_tokens if hard_limit_tokens is not None
            else self.policy.fold_trigger + max(1, gap // 2)
        )
        if isinstance(system, str):
            self.system: list[dict[str, Any]] = [{"role": "system", "content": system}]
        else:
            self.system = [dict(m) for m in system or ()]
        for i, m in enumerate(self.system):
            validate_message(m, i)
        # The cached view of the store: fold state, pinned entries, the tail after the summary.
        self._lock = threading.RLock()
        self._state = FoldState()
        self._pinned: list[LogEntry] = []
        self._tail: list[LogEntry] = []
        # The context, kept part by part with its exports and token counts, so a turn costs
        # time for the new entries only (the parts are rebuilt once per fold).
        self._system_export = to_openai(self.system)
        self._system_tokens = sum(self.counter.count_message(m) for m in self.system)
        self._head_msgs: list[Any] = []
        self._head_seqs: list[int | None] = []
        self._head_export: list[dict[str, Any]] = []
        self._head_tokens = 0
        self._tail_msgs: list[Any] = []
        self._tail_export: list[dict[str, Any]] = []
        self._tail_tokens = 0
        self._call_ids: set[str] = set()
        self._last_seq = 0
        self._loaded = False
        self._last_error: str | None = None
        self._retry_at = 0.0
        self._owner = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self._through: int | None = None  # refold replays the log up to this seq
        self._recall = Recall()
        self._recall_key: tuple[int, int, str] | None = None

    # -- the view ------------------------------------------------------------------------------

    def _absorb(self, state: FoldState, new_entries: Sequence[LogEntry],
                pinned: Sequence[LogEntry] | None) -> None:
        """Bring the cached view up to date with the store's state and new entries."""
        with self._lock:
            first = not self._loaded
            if not first and state.version < self._state.version:
                # Read before a fold another thread has already absorbed: versions only grow.
                state, pinned = self._state, None
            if first:
                self._last_seq = state.covered_through
            fresh = [e for e in new_entries if e.seq > self._last_seq]
            if fresh:
                self._last_seq = fresh[-1].seq
            if pinned is not None:
                self._pinned = list(pinned)
            if first or pinned is not None or state.version != self._state.version:
                self._state = state
                self._tail = [e for e in self._tail
                              if e.seq > state.covered_through and e.seq not in state.pinned_seqs]
                self._rebuild()
            self._state = state
            self._loaded = True
            self._extend_tail(fresh)

    def _rebuild(self) -> None:
        """Recompute every part of the view (after a fold, or on first load)."""
        head: list[Any] = [e.message for e in self._pinned]
        seqs: list[int | None] = [e.seq for e in self._pinned]
        if self._state.summary:
            lang = self._state.language if self._state.language in ("zh", "en") else "en"
            head.append(summary_message(self._state.summary, lang))  # type: ignore[arg-type]
            seqs.append(None)
        self._head_msgs, self._head_seqs = head, seqs
        self._head_export = [x for m in head for x in to_openai_message(m)]
        self._head_tokens = sum(self.counter.count_message(m) for m in head)
        self._call_ids = {i for m in (*self.system, *head) for i in tool_call_ids(m)}
        tail, self._tail = self._tail, []
        self._tail_msgs, self._tail_export, self._tail_tokens = [], [], 0
        self._extend_tail(tail)

    def _extend_tail(self, entries: Sequence[LogEntry]) -> None:
        for e in entries:
            m = e.message
            if is_tool_result(m) and m.get("role") != "function":
                missing = [i for i in tool_result_ids(m) if i not in self._call_ids]
                if missing:
                    raise InvalidMessageError(
                        None, f"log entry {e.seq} of {self.conversation_id!r} answers tool call "
                        f"{missing[0]!r}, which is not in the context; append a tool call and "
                        "its results together"
                    )
            self._call_ids.update(tool_call_ids(m))
            self._tail.append(e)
            self._tail_msgs.append(m)
            self._tail_export.extend(to_openai_message(m))
            self._tail_tokens += self.counter.count_message(m)

    def _total(self) -> int:
        """Tokens of the whole context, kept up to date part by part."""
        return self._system_tokens + self._head_tokens + self._tail_tokens

    def _fetch_after(self, state: FoldState) -> int:
        return self._last_seq if self._loaded else state.covered_through

    def _fetch_limit(self, after: int) -> int | None:
        return None if self._through is None else max(0, self._through - after)

    def _needs_pinned(self, state: FoldState) -> bool:
        return tuple(e.seq for e in self._pinned) != state.pinned_seqs

    def _view(self) -> tuple[list[Any], list[int | None]]:
        """The raw context (with the ``is_summary`` marker) and each message's log seq."""
        with self._lock:
            msgs = [*self.system, *self._head_msgs, *self._tail_msgs]
            seqs = [*([None] * len(self.system)), *self._head_seqs, *(e.seq for e in self._tail)]
            return msgs, seqs

    def _raw(self) -> list[Any]:
        with self._lock:
            return [*self.system, *self._head_msgs, *self._tail_msgs]

    def _exported(self) -> list[dict[str, Any]]:
        # Copies, so a caller that edits what it got cannot change the cached view.
        with self._lock:
            recall = self._recall.message
            placed = to_openai_message(recall) if recall is not None else []
            return list(map(dict, chain(self._system_export, self._head_export, placed,
                                        self._tail_export)))

    def _raw_placed(self) -> list[Any]:
        """The raw context with the recall message (if any) right after the summary."""
        with self._lock:
            recall = [] if self._recall.message is None else [self._recall.message]
            return [*self.system, *self._head_msgs, *recall, *self._tail_msgs]

    def _recall_args(self, query: str | None) -> dict[str, Any] | None:
        """What this context's recall searches for, or None when there is nothing to do (the
        result is then kept as is, or cleared). See :mod:`chatfold.recall`."""
        with self._lock:
            state = self._state
            text = query if query is not None else latest_user_text(self._tail_msgs)
            key = (state.version, state.covered_through, text)
            if self.policy.recall_tokens <= 0 or state.covered_through <= 0 or not text.strip():
                self._recall, self._recall_key = Recall(query=text), None
                return None
            if key == self._recall_key:
                return None  # same archive, same query: the same recall
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
                    "budget": max(self.policy.recall_tokens, 400 * n),
                    "counter": self.counter, "language": lang, "summary": ""}

    @property
    def last_recall(self) -> Recall:
        """What the last ``context()`` recalled (see :class:`chatfold.recall.Recall`)."""
        return self._recall

    def _tokens(self, messages: Sequence[Any]) -> int:
        return sum(self.counter.count_message(m) for m in messages)

    def _next_state(self, plan: FoldPlan, seqs: Sequence[int | None],
                    result: FoldResult) -> FoldState:
        old_seqs = [seqs[i] for i in plan.old if seqs[i] is not None]
        covered = max([self._state.covered_through, *(s for s in old_seqs if s is not None)])
        pinned = sorted({*self._state.pinned_seqs,
                         *(s for i in plan.pinned if (s := seqs[i]) is not None)})
        return replace(
            self._state,
            summary=result.summary or "",
            covered_through=covered,
            version=self._state.version + 1,
            language=self._state.language or plan.language,
            pinned_seqs=tuple(pinned),
            folds=self._state.folds + 1,
            summarizer_calls=self._state.summarizer_calls + result.summarizer_calls,
            last_fold_seconds=result.seconds,
        )

    def _unfolded(self, reason: Reason) -> FoldResult:
        """The result of a fold that did not run: the current context, unchanged."""
        tokens = self._total()
        return FoldResult(messages=self._raw(), folded=False, reason=reason,
                          tokens_before=tokens, tokens_after=tokens)

    def _cleared_state(self) -> FoldState:
        """The state a refold starts from: no summary, the counters kept, the next version."""
        s = self._state
        return FoldState(version=s.version + 1, language=s.language, folds=s.folds,
                         summarizer_calls=s.summarizer_calls)

    def _forget_view(self) -> None:
        self._pinned, self._tail, self._last_seq, self._loaded = [], [], 0, False
        self._state = FoldState()

    def _should_fold(self, total: int) -> bool:
        return total > self.policy.fold_trigger and time.monotonic() >= self._retry_at

    def _stats(self, pending: bool) -> ConversationStats:
        with self._lock:
            summary = self._tokens([m for m in self._head_msgs if m.get("is_summary")])
            total = self._total()
            return ConversationStats(
                pinned_tokens=self._system_tokens + self._head_tokens - summary,
                summary_tokens=summary,
                recent_tokens=self._tail_tokens,
                total_tokens=total,
                logged_messages=self._last_seq,
                context_messages=len(self.system) + len(self._head_msgs) + len(self._tail_msgs),
                folds=self._state.folds,
                summarizer_calls=self._state.summarizer_calls,
                last_fold_seconds=self._state.last_fold_seconds,
                fold_pending=pending,
                last_error=self._last_error,
                recall_tokens=self._recall.tokens,
                recalled=self._recall.seqs,
            )

    @property
    def summary(self) -> str:
        """The current summary text (``""`` before the first fold)."""
        return self._state.summary

    @staticmethod
    def _as_list(message: Any) -> list[dict[str, Any]]:
        # An SDK message object (the OpenAI SDK's ChatCompletionMessage, any pydantic model)
        # is stored as its dict, the way the provider would send it back.
        def plain(m: Any) -> Any:
            dump = getattr(m, "model_dump", None)
            return dump(exclude_none=True) if callable(dump) and not isinstance(m, Mapping) else m

        single = isinstance(message, Mapping) or callable(getattr(message, "model_dump", None))
        items = [plain(message)] if single else [plain(m) for m in message]
        out = []
        for i, m in enumerate(items):
            validate_message(m, i)
            out.append(dict(m))
        return out

    def _fold_note(self, result: FoldResult) -> None:
        if result.error is not None:
            self._last_error = str(result.error)
            self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS


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

    def _refresh(self) -> None:
        state = self.store.load_state(self.conversation_id)
        after = self._fetch_after(state)
        new = self.store.entries(self.conversation_id, after=after,
                                 limit=self._fetch_limit(after))
        pinned = self._pinned_entries(state) if self._needs_pinned(state) else None
        self._absorb(state, new, pinned)

    def _pinned_entries(self, state: FoldState) -> list[LogEntry]:
        if not state.pinned_seqs:
            return []
        wanted = set(state.pinned_seqs)
        out: list[LogEntry] = []
        for e in self.store.entries(self.conversation_id, after=min(wanted) - 1,
                                    limit=max(wanted) - min(wanted) + 1):
            if e.seq in wanted:
                out.append(e)
        return out

    def append(self, message: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[int]:
        """Append one message or several to the log (atomically); returns their seqs.

        SDK message objects (e.g. ``response.choices[0].message`` from the OpenAI SDK) are
        accepted and stored as their ``model_dump(exclude_none=True)``.

        Raises:
            InvalidMessageError: a message is malformed (nothing is appended).
        """
        return list(self.store.append(self.conversation_id, self._as_list(message)))

    def context(self, *, query: str | None = None) -> list[dict[str, Any]]:
        """The messages to send next, provider-safe (OpenAI format), within the budget.

        Inline mode folds here when over the trigger; background mode starts a fold in a
        thread and returns at once (unless over ``hard_limit_tokens``). With
        ``Policy(recall_tokens=...)``, the archived messages that best match ``query``
        (default: the latest user message) follow the summary as one system message.

        Raises:
            ContextOverflowError: pinned + latest unit exceed the target (policy permitting).
            SummarizerError: an inline fold failed (policy ``on_error="raise"``).
        """
        self._settle()
        self._run_recall(query)
        return self._exported()

    def raw_context(self, *, query: str | None = None) -> list[Any]:
        """Like :meth:`context` but with the summary's ``is_summary`` (and the recall
        message's ``is_recall``) marker kept (for :func:`~chatfold.to_anthropic` or
        inspection)."""
        self._settle()
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
            self._refresh()
            args = self._tool_args(query, limit)
            return tool_text(run_recall(self.store, self.conversation_id, **args),
                             args["language"])

        async def ahandler(query: str, limit: int = 5) -> str:
            return await asyncio.to_thread(handler, query, limit)

        return RecallTool(openai=openai, anthropic=anthropic, handler=handler,
                          ahandler=ahandler)

    def _settle(self) -> None:
        """Catch up with the store, and fold (inline) or start a fold (background) if due."""
        self._refresh()
        if not self._should_fold(self._total()):
            return
        if self.fold_mode == "background" and self._total() <= self.hard_limit_tokens:
            self._start_background()
            return
        if self.fold_mode == "background":
            self.wait()  # over the hard limit: let the pending fold land first
            self._refresh()
            if not self._should_fold(self._total()):
                return
        self.fold()

    def fold(self, *, force: bool = False) -> FoldResult:
        """Fold now if the policy says so (or ``force``); returns what happened.

        Only one fold per conversation runs at a time, across processes: a fold that finds
        another one running returns ``reason="fold_in_progress"`` without calling the
        summarizer, and a fold whose compare-and-set loses is discarded.
        """
        with self._fold_lock:
            self._refresh()
            msgs, seqs = self._view()
            if not self.store.acquire_lease(self.conversation_id, self._owner,
                                            self.lease_seconds):
                return self._unfolded("fold_in_progress")
            try:
                result = self.folder.fold(msgs, force=force,
                                          metadata={"conversation_id": self.conversation_id})
                self._fold_note(result)
                if result.folded and result.plan is not None:
                    state = self._next_state(result.plan, seqs, result)
                    try:
                        self.store.save_state(self.conversation_id, state,
                                              expected_version=self._state.version)
                    except FoldConflictError:
                        logger.warning("chatfold: %s: another fold won; this one is discarded",
                                       self.conversation_id)
                        self._refresh()
                        return replace(result, messages=self._view()[0], folded=False)
                    self._last_error = None
                    self._refresh()
                return result
            finally:
                self.store.release_lease(self.conversation_id, self._owner)

    def _start_background(self) -> None:
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(
                target=self._background_fold, name=f"chatfold-fold-{self.conversation_id}",
                daemon=True,
            )
            self._worker.start()

    def _background_fold(self) -> None:
        try:
            self.fold()
        except SummarizerError as exc:
            self._last_error = str(exc)
            self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS
            logger.warning("chatfold: background fold of %s failed: %s", self.conversation_id, exc)
        except Exception as exc:  # a background thread must report, not die silently
            self._last_error = f"{type(exc).__name__}: {exc}"
            self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS
            logger.exception("chatfold: background fold of %s failed", self.conversation_id)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a pending background fold to finish."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    def transcript(self) -> list[dict[str, Any]]:
        """Every message ever appended, in order, with the system prompt first (lossless)."""
        return [*self.system, *(e.message for e in self.store.entries(self.conversation_id))]

    def stats(self) -> ConversationStats:
        """Tokens by part and folding costs."""
        self._refresh()
        worker = self._worker
        return self._stats(worker is not None and worker.is_alive())

    def refold(self) -> FoldResult:
        """Forget the summary and fold the whole log again (e.g. with a better summarizer),
        replaying it entry by entry so that each summarizer call sees about one trigger's
        worth of messages, as the original folds did. The log is untouched.

        Returns:
            The last fold's result (``folded=False`` when the log fits under the trigger).
        """
        with self._fold_lock:
            self._refresh()
            if not self.store.exists(self.conversation_id):
                return self._unfolded("nothing_to_fold")
            self.store.save_state(self.conversation_id, self._cleared_state(),
                                  expected_version=self._state.version)
            self._forget_view()
        last = self.store.last_seq(self.conversation_id)
        result: FoldResult | None = None
        try:
            for seq in range(1, last + 1):
                self._through = seq
                self._refresh()
                if self._should_fold(self._total()):
                    result = self.fold()
        finally:
            self._through = None
        self._refresh()
        if self._should_fold(self._total()):
            result = self.fold()
        return result if result is not None else self._unfolded("under_trigger")

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
        self._task: asyncio.Task[FoldResult] | None = None
        self._afold_lock: asyncio.Lock | None = None

    async def _arefresh(self) -> None:
        state = await self.store.aload_state(self.conversation_id)
        after = self._fetch_after(state)
        new = await self.store.aentries(self.conversation_id, after=after,
                                        limit=self._fetch_limit(after))
        pinned = None
        if self._needs_pinned(state):
            pinned = []
            if state.pinned_seqs:
                wanted = set(state.pinned_seqs)
                got = await self.store.aentries(
                    self.conversation_id, after=min(wanted) - 1,
                    limit=max(wanted) - min(wanted) + 1)
                pinned = [e for e in got if e.seq in wanted]
        self._absorb(state, new, pinned)

    async def aappend(self, message: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> list[int]:
        """Async :meth:`Conversation.append`."""
        return list(await self.store.aappend(self.conversation_id, self._as_list(message)))

    async def acontext(self, *, query: str | None = None) -> list[dict[str, Any]]:
        """Async :meth:`Conversation.context`."""
        await self._asettle()
        await self._arun_recall(query)
        return self._exported()

    async def araw_context(self, *, query: str | None = None) -> list[Any]:
        """Async :meth:`Conversation.raw_context`."""
        await self._asettle()
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
            await self._arefresh()
            args = self._tool_args(query, limit)
            return tool_text(await arun_recall(self.store, self.conversation_id, **args),
                             args["language"])

        def handler(query: str, limit: int = 5) -> str:
            args = self._tool_args(query, limit)
            return tool_text(run_recall(self.store, self.conversation_id, **args),
                             args["language"])

        return RecallTool(openai=openai, anthropic=anthropic, handler=handler,
                          ahandler=ahandler)

    async def _asettle(self) -> None:
        await self._arefresh()
        if not self._should_fold(self._total()):
            return
        if self.fold_mode == "background" and self._total() <= self.hard_limit_tokens:
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._abackground())
            return
        if self.fold_mode == "background":
            await self.await_fold()
            await self._arefresh()
            if not self._should_fold(self._total()):
                return
        await self.afold()

    async def _abackground(self) -> FoldResult:
        try:
            return await self.afold()
        except SummarizerError as exc:
            self._last_error = str(exc)
            self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS
            logger.warning("chatfold: background fold of %s failed: %s", self.conversation_id, exc)
            return self._unfolded("summarizer_error")

    async def afold(self, *, force: bool = False) -> FoldResult:
        """Async :meth:`Conversation.fold`."""
        if self._afold_lock is None:
            self._afold_lock = asyncio.Lock()
        async with self._afold_lock:
            await self._arefresh()
            msgs, seqs = self._view()
            if not await self.store.aacquire_lease(self.conversation_id, self._owner,
                                                   self.lease_seconds):
                return self._unfolded("fold_in_progress")
            try:
                result = await self.folder.afold(
                    msgs, force=force, metadata={"conversation_id": self.conversation_id})
                self._fold_note(result)
                if result.folded and result.plan is not None:
                    state = self._next_state(result.plan, seqs, result)
                    try:
                        await self.store.asave_state(self.conversation_id, state,
                                                     expected_version=self._state.version)
                    except FoldConflictError:
                        logger.warning("chatfold: %s: another fold won; this one is discarded",
                                       self.conversation_id)
                        await self._arefresh()
                        return replace(result, messages=self._view()[0], folded=False)
                    self._last_error = None
                    await self._arefresh()
                return result
            finally:
                await self.store.arelease_lease(self.conversation_id, self._owner)

    async def arefold(self) -> FoldResult:
        """Async :meth:`Conversation.refold`."""
        if self._afold_lock is None:
            self._afold_lock = asyncio.Lock()
        async with self._afold_lock:
            await self._arefresh()
            if not await self.store.aexists(self.conversation_id):
                return self._unfolded("nothing_to_fold")
            await self.store.asave_state(self.conversation_id, self._cleared_state(),
                                         expected_version=self._state.version)
            self._forget_view()
        last = await self.store.alast_seq(self.conversation_id)
        result: FoldResult | None = None
        try:
            for seq in range(1, last + 1):
                self._through = seq
                await self._arefresh()
                if self._should_fold(self._total()):
                    result = await self.afold()
        finally:
            self._through = None
        await self._arefresh()
        if self._should_fold(self._total()):
            result = await self.afold()
        return result if result is not None else self._unfolded("under_trigger")

    async def await_fold(self) -> None:
        """Wait for a pending background fold to finish."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def atranscript(self) -> list[dict[str, Any]]:
        """Async :meth:`Conversation.transcript`."""
        entries = await self.store.aentries(self.conversation_id)
        return [*self.system, *(e.message for e in entries)]

    async def astats(self) -> ConversationStats:
        """Async :meth:`Conversation.stats`."""
        await self._arefresh()
        return self._stats(self._task is not None and not self._task.done())

    async def aclose(self) -> None:
        """Wait for a pending fold and close the store."""
        await self.await_fold()
        await self.store.aclose()

