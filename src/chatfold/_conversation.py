"""The machinery behind :mod:`chatfold.session`: one stored conversation's cached view, its
bookkeeping, and its protocol, written once for both twins.

- **The view**: the fold state, the pinned log entries and the tail after the summary, kept
  part by part with their provider exports and token counts, so a turn costs time for the new
  entries only (the parts are rebuilt once per fold).
- **The protocol**: refresh (catch up with the store), append, settle (fold if due), fold
  (lease -> fold -> compare-and-set -> conflict), refold, transcript. Each is a generator that
  yields the I/O it needs as a :class:`_Call` and gets the result (or the exception, thrown
  in) back. :class:`chatfold.session.Conversation` runs each call and
  :class:`chatfold.session.AsyncConversation` awaits it; that is all the two twins differ in.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ._errors import (
    FoldConflictError,
    InvalidArgumentError,
    InvalidMessageError,
    SummarizerError,
)
from .fold import (
    Folder,
    FoldPlan,
    FoldResult,
    Policy,
    Reason,
    summary_message,
)
from .messages import (
    is_summary,
    is_tool_result,
    to_openai,
    to_openai_message,
    tool_call_ids,
    tool_result_ids,
    validate_message,
)
from .recall import Recall, can_search
from .stores.state import FoldState
from .tokens import TokenCounter

if TYPE_CHECKING:
    from typing import Protocol

    from .stores.base import AsyncStore, LogEntry, Store

    class _FullStore(Store, AsyncStore, Protocol):
        """A store with both the sync methods and their async twins (every built-in)."""

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_RETRY_SECONDS",
    "ConversationStats",
    "FoldMode",
]

logger = logging.getLogger("chatfold")

FoldMode = Literal["inline", "background"]

DEFAULT_LEASE_SECONDS = 300.0
"""A fold lease expires after this long, so a crashed folder never blocks folding for good."""
DEFAULT_RETRY_SECONDS = 30.0
"""After a failed background fold, wait this long before trying again."""

_T = TypeVar("_T")

# Only a fold writes the summary (it lives in the fold state, not the log): a stored one
# would be a second summary in every later context.
_SUMMARY_APPENDED = ("is a summary message (is_summary): a conversation keeps its own "
                     "summary; append the raw messages instead")


_NO_KWARGS: dict[str, Any] = {}
"""A call's keyword arguments when it has none (only ever read: unpacked with ``**``)."""


class _Call:
    """One I/O step of a conversation's protocol: a method with a sync and an async name.

    The protocol (``_BaseConversation._*_steps``) is written once as generators that yield
    these; :class:`Conversation` runs each with ``run()`` and :class:`AsyncConversation`
    awaits ``arun()``, and that is all the two twins differ in.
    """

    __slots__ = ("aname", "args", "kwargs", "name", "target")

    def __init__(self, target: Any, name: str, aname: str, args: tuple[Any, ...] = (),
                 kwargs: dict[str, Any] = _NO_KWARGS) -> None:
        # Packed arguments (not *args, **kwargs): a turn builds a few of these, no repacking.
        self.target = target
        self.name = name
        self.aname = aname
        self.args = args
        self.kwargs = kwargs

    def run(self) -> Any:
        return getattr(self.target, self.name)(*self.args, **self.kwargs)

    async def arun(self) -> Any:
        return await getattr(self.target, self.aname)(*self.args, **self.kwargs)


_Steps = Generator[_Call, Any, _T]


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



class _ConversationCore:
    """What the sync and async conversations share: the cached view, the bookkeeping, and
    the protocol (the ``_*_steps`` generators).

    No I/O here: the generators yield each store or summarizer call as a :class:`_Call`, and
    the twins' drivers run it (sync) or await it (async).
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
            raise InvalidArgumentError(
                "fold_mode", f"must be 'inline' or 'background', got {fold_mode!r}"
            )
        if store is None:
            from .stores import default_store

            store = default_store()
        if summarizer is None:
            from .summarizers.extractive import ExtractiveSummarizer

            summarizer = ExtractiveSummarizer()
        self.conversation_id = conversation_id
        self.store: _FullStore = store
        # recall_tokens=None (auto): a share of the trigger when the store can search.
        self.policy = (policy if policy is not None else Policy()).with_auto_recall(
            can_search(store))
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
        self._pinned_seqs: tuple[int, ...] = ()
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
            if pinned is None and self._loaded and state.version == self._state.version:
                # The common turn: the same fold state, only new entries to add.
                self._state = state
                for e in new_entries:
                    if e.seq > self._last_seq:
                        self._add_entry(e)  # raises for an entry the view refuses (below)
                        self._last_seq = e.seq
                return
            first = not self._loaded
            if not first and state.version < self._state.version:
                # Read before a fold another thread has already absorbed: versions only grow.
                state, pinned = self._state, None
            if first:
                self._last_seq = state.covered_through
            fresh = [e for e in new_entries if e.seq > self._last_seq]
            if pinned is not None:
                self._pinned = list(pinned)
                self._pinned_seqs = tuple(e.seq for e in self._pinned)
            if first or pinned is not None or state.version != self._state.version:
                self._state = state
                self._tail = [e for e in self._tail
                              if e.seq > state.covered_through and e.seq not in state.pinned_seqs]
                self._rebuild()
            self._state = state
            self._loaded = True
            for e in fresh:
                # An entry the view refuses raises here, and the read position stays before
                # it: every later call raises again rather than silently skipping it.
                self._add_entry(e)
                self._last_seq = e.seq

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
            self._add_entry(e)

    def _add_entry(self, e: LogEntry) -> None:
        m = e.message
        # Text content and no tool_calls: neither a tool call nor a result (the common turn).
        if (type(m.get("content")) is not str or "tool_calls" in m
                or m.get("role") in ("tool", "function")):
            if is_tool_result(m) and m.get("role") != "function":
                missing = [i for i in tool_result_ids(m) if i not in self._call_ids]
                if missing:
                    raise InvalidMessageError(
                        None, f"log entry {e.seq} of {self.conversation_id!r} answers tool "
                        f"call {missing[0]!r}, which is not in the context; append a tool call "
                        "and its results together"
                    )
            self._call_ids.update(tool_call_ids(m))
        self._tail.append(e)
        self._tail_msgs.append(m)
        self._tail_export.extend(to_openai_message(m))
        self._tail_tokens += self.counter.count_message(m)

    def _total(self) -> int:
        """Tokens of the whole context, kept up to date part by part."""
        return self._system_tokens + self._head_tokens + self._tail_tokens

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
            return list(map(dict.copy, [*self._system_export, *self._head_export, *placed,
                                        *self._tail_export]))

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
        self._pinned_seqs = ()
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
            if type(m) is dict:  # the common case, without the attribute lookup
                return m
            dump = getattr(m, "model_dump", None)
            return dump(exclude_none=True) if callable(dump) and not isinstance(m, Mapping) else m

        if type(message) is dict:  # one plain message, the common turn: no generic walk
            validate_message(message, 0)
            if is_summary(message):
                raise InvalidMessageError(0, _SUMMARY_APPENDED)
            return [message.copy()]
        if (isinstance(message, Mapping)
                or callable(getattr(message, "model_dump", None))):
            items = [plain(message)]
        elif isinstance(message, Iterable) and not isinstance(message, (str, bytes, bytearray)):
            items = [plain(m) for m in message]
        else:
            raise InvalidMessageError(
                None, "expected a message (a dict) or a list of messages, got "
                f"{type(message).__name__}"
            )
        out = []
        for i, m in enumerate(items):
            validate_message(m, i)
            if is_summary(m):
                # Only a fold writes the summary (it lives in the fold state, not the log):
                # a stored one would be a second summary in every later context.
                raise InvalidMessageError(i, _SUMMARY_APPENDED)
            out.append(dict(m))
        return out

    def _fold_note(self, result: FoldResult) -> None:
        if result.error is not None:
            self._last_error = str(result.error)
            self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS

    # -- the protocol, written once ------------------------------------------------------------
    # Each ``_*_steps`` generator yields the I/O it needs as a _Call and gets the result (or the
    # exception, thrown in) back; the twins' drivers run or await the calls.

    def _store_call(self, name: str, *args: Any, **kwargs: Any) -> _Call:
        return _Call(self.store, name, "a" + name, (self.conversation_id, *args), kwargs)

    def _refresh_steps(self) -> _Steps[None]:
        """Catch up with the store: fold state, new entries, pinned entries when they changed."""
        if self._loaded:
            # A turn's two reads as one step (the twins' _read: the fold state, then the
            # entries after the view's end): where to read from is known before the state.
            after = self._last_seq
            limit = None if self._through is None else max(0, self._through - after)
            state, new = yield _Call(self, "_read", "_aread", (after, limit))
        else:  # first load: the state says where the view starts
            state = yield self._store_call("load_state")
            after = state.covered_through
            limit = None if self._through is None else max(0, self._through - after)
            new = yield self._store_call("entries", after=after, limit=limit)
        pinned = None
        if self._pinned_seqs != state.pinned_seqs:
            pinned = []
            if state.pinned_seqs:
                wanted = set(state.pinned_seqs)
                got = yield self._store_call("entries", after=min(wanted) - 1,
                                             limit=max(wanted) - min(wanted) + 1)
                pinned = [e for e in got if e.seq in wanted]
        self._absorb(state, new, pinned)

    def _append_steps(self, message: Any) -> _Steps[list[int]]:
        batch = self._as_list(message)
        if any(map(is_tool_result, batch)):
            yield from self._refresh_steps()  # what a tool result may answer: the stored tail
            self._check_pairing(batch)
        seqs = yield _Call(self.store, "append", "aappend", (self.conversation_id, batch))
        return list(seqs)

    def _check_pairing(self, batch: Sequence[Mapping[str, Any]]) -> None:
        """Refuse a tool result that answers no tool call of the context or of the batch: the
        view could never send it (providers reject an orphan result)."""
        with self._lock:
            known = set(self._call_ids)
        for i, m in enumerate(batch):
            if is_tool_result(m) and m.get("role") != "function":
                missing = [x for x in tool_result_ids(m) if x not in known]
                if missing:
                    raise InvalidMessageError(
                        i, f"tool result for {missing[0]!r} answers no tool call in the context "
                        f"of {self.conversation_id!r} or earlier in this batch; append the "
                        "assistant's tool call first, or both together (nothing was appended)"
                    )
            known.update(tool_call_ids(m))

    def _settle_steps(self) -> _Steps[None]:
        """Catch up with the store, and fold (inline) or start a fold (background) if due."""
        yield from self._refresh_steps()
        if not self._should_fold(self._total()):
            return
        if self.fold_mode == "background" and self._total() <= self.hard_limit_tokens:
            yield _Call(self, "_start_background", "_astart_background")
            return
        if self.fold_mode == "background":
            yield _Call(self, "wait", "await_fold")  # over the hard limit: let it land first
            yield from self._refresh_steps()
            if not self._should_fold(self._total()):
                return
        yield _Call(self, "fold", "afold")

    def _fold_steps(self, force: bool) -> _Steps[FoldResult]:
        """lease -> fold -> compare-and-set -> conflict; run under the twin's fold lock.

        Only one fold per conversation runs at a time, across processes (the store's lease),
        and a fold whose compare-and-set loses is discarded.
        """
        yield from self._refresh_steps()
        msgs, seqs = self._view()
        if not (yield self._store_call("acquire_lease", self._owner, self.lease_seconds)):
            return self._unfolded("fold_in_progress")
        try:
            result: FoldResult = yield _Call(
                self.folder, "fold", "afold", (msgs,),
                {"force": force, "metadata": {"conversation_id": self.conversation_id}})
            self._fold_note(result)
            if result.folded and result.plan is not None:
                state = self._next_state(result.plan, seqs, result)
                try:
                    yield self._store_call("save_state", state,
                                           expected_version=self._state.version)
                except FoldConflictError:
                    logger.warning("chatfold: %s: another fold won; this one is discarded",
                                   self.conversation_id)
                    yield from self._refresh_steps()
                    return replace(result, messages=self._view()[0], folded=False,
                                   reason="fold_conflict")
                self._last_error = None
                yield from self._refresh_steps()
            return result
        finally:
            yield self._store_call("release_lease", self._owner)

    def _background_steps(self) -> _Steps[None]:
        """A background fold: every failure is recorded and retried later, never raised."""
        try:
            yield _Call(self, "fold", "afold")
        except SummarizerError as exc:
            self._fold_failed(f"{exc}")
            logger.warning("chatfold: background fold of %s failed: %s", self.conversation_id, exc)
        except Exception as exc:  # a background fold must report, not die silently
            self._fold_failed(f"{type(exc).__name__}: {exc}")
            logger.exception("chatfold: background fold of %s failed", self.conversation_id)

    def _fold_failed(self, error: str) -> None:
        self._last_error = error
        self._retry_at = time.monotonic() + DEFAULT_RETRY_SECONDS

    def _refold_reset_steps(self) -> _Steps[FoldResult | None]:
        """Clear the summary (under the fold lock); a result when there is nothing to refold."""
        yield from self._refresh_steps()
        if not (yield self._store_call("exists")):
            return self._unfolded("nothing_to_fold")
        yield self._store_call("save_state", self._cleared_state(),
                               expected_version=self._state.version)
        self._forget_view()
        return None

    def _refold_steps(self) -> _Steps[FoldResult]:
        """Replay the log entry by entry, folding whenever the trigger is crossed, so that each
        summarizer call sees about one trigger's worth of messages, as the original folds did."""
        done = yield _Call(self, "_locked", "_alocked", (self._refold_reset_steps(),))
        if done is not None:
            return done  # type: ignore[no-any-return]
        last = yield self._store_call("last_seq")
        result: FoldResult | None = None
        try:
            for seq in range(1, last + 1):
                self._through = seq
                yield from self._refresh_steps()
                if self._should_fold(self._total()):
                    result = yield _Call(self, "fold", "afold")
        finally:
            self._through = None
        yield from self._refresh_steps()
        if self._should_fold(self._total()):
            result = yield _Call(self, "fold", "afold")
        return result if result is not None else self._unfolded("under_trigger")

    def _transcript_steps(self) -> _Steps[list[dict[str, Any]]]:
        entries = yield self._store_call("entries")
        return [*self.system, *(e.message for e in entries)]
