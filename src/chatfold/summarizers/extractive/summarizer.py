"""The ExtractiveSummarizer class: collect, merge, cap, render."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...messages import content_text
from ...tokens import default_counter
from ..base import BaseSummarizer, SummaryRequest
from ..prompts import SECTION_TITLES
from .items import _is_tool_line, _Item, _merge, _previous_items, _previous_role, _Shape
from .lexicon import (
    _AGE_DECAY,
    _COLON,
    _DECISIONS,
    _FACTS,
    _MAX_MISSES,
    _NOTHING_TO_KEEP,
    _PREFS,
    _PREVIOUS_FLOOR,
    _ROLE_TAGS,
    _TOOL_RESULT_WORD,
    _TOOL_WORD,
    DEFAULT_MIN_SCORE,
    DEFAULT_TOOL_RESULT_CHARS,
)
from .render import _as_sentence, _discount_repeats, _fit, _render
from .scoring import _ID_TOKEN, _score_all
from .sentences import _ROLE_TAG, _strip_filler, split_sentences
from .tools import _is_tool_block, _render_args, _render_result, _result_text, _ToolLine


class ExtractiveSummarizer(BaseSummarizer):
    """The embedded summarizer: picks the informative sentences, needs no key and no network.

    Deterministic: the same request always gives the same summary. Chinese and English.

    Args:
        count: Counts a text's tokens for the cap; pass the fold's ``counter.count`` so the
            cap holds exactly. Defaults to chatfold's default counter.
        min_score: New sentences scoring below this are dropped as small talk.
        tool_result_chars: A tool result is trimmed to about this many characters.

    Example:
        >>> from chatfold.summarizers.base import SummaryRequest
        >>> s = ExtractiveSummarizer()
        >>> req = SummaryRequest("事实：\\n- 用户：我住在北京。",
        ...     [{"role": "user", "content": "你好！我上个月搬到上海了。"}], "zh", max_tokens=80)
        >>> print(s.summarize(req))
        事实：
        - 用户：我上个月搬到上海了。
    """

    def __init__(
        self,
        *,
        count: Callable[[str], int] | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        tool_result_chars: int = DEFAULT_TOOL_RESULT_CHARS,
    ) -> None:
        self._count = count if count is not None else default_counter().count
        self._explicit_count = count is not None
        self.min_score = min_score
        self.tool_result_chars = tool_result_chars

    def summarize(self, request: SummaryRequest) -> str:
        """Return the new summary for ``request``: previous summary merged with new messages.

        Args:
            request: Previous summary, newly evicted messages, language, cap and style.

        Returns:
            The summary text (sections, or one paragraph for ``style="paragraph"``), within
            ``request.max_tokens`` (``target_tokens`` on a re-ask) as counted by ``count``.
        """
        lang = request.language if request.language in SECTION_TITLES else "en"
        items = self._collect(request, lang)
        kept = _merge(items)
        budget = request.max_tokens
        if request.attempt >= 2 and request.target_tokens:
            budget = min(budget, request.target_tokens)
        # The fold's own counter, when it sends one, makes the cap exact.
        count = request.count if request.count is not None and not self._explicit_count \
            else self._count
        return self._render_capped(kept, lang, request.style, max(budget, 0), count)

    # asummarize is BaseSummarizer's: summarize in a worker thread, so a large fold never
    # holds up the event loop.

    # -- collecting -----------------------------------------------------------------------

    def _collect(self, request: SummaryRequest, lang: str) -> list[_Item]:
        # (tag shown, text, role, section from the previous summary's headings or None)
        rows: list[tuple[str, str, str, int | None]] = []
        # A stray summary message among the evicted ones is merged like the previous summary,
        # never summarized as a system note (the seed silently dropped all but the last).
        summaries = [
            content_text(m.get("content")) for m in request.messages if m.get("is_summary")
        ]
        summaries.append(request.previous_summary or "")
        previous = [item for summary in summaries for item in _previous_items(summary)]
        for text, section in previous:
            tag_match = _ROLE_TAG.match(text)
            tag = tag_match.group() if tag_match else ""
            rows.append((tag, text[len(tag) :], "summary", section))
        n_previous = len(rows)
        tags = {role: f"{tag}{_COLON[lang]}" for role, tag in _ROLE_TAGS[lang].items()}
        sentences: dict[str, list[str]] = {}  # a message said again is split once per fold
        for role, text in self._pieces(request.messages, lang):
            if role == "tool":
                rows.append(("", text, role, None))
            else:
                tag = tags.get(role, "")
                split = sentences.get(text)
                if split is None:
                    split = sentences[text] = [_strip_filler(s) for s in split_sentences(text)]
                rows.extend((tag, s, role, None) for s in split)
        # A carried-forward statement is scored as what it was: the user's words, the
        # assistant's, a tool line; an untagged one (an LLM's summary) as a fact about the user.
        scores = _score_all(
            [r[1] for r in rows],
            [_previous_role(r[0], r[1]) if r[2] == "summary" else r[2] for r in rows],
        )
        items: list[_Item] = []
        shapes: dict[tuple[str, str, bool], _Shape] = {}
        for i, ((tag, body, role, section), scored) in enumerate(zip(rows, scores, strict=True)):
            order = i - n_previous  # previous-summary items come first, with negative orders
            score = scored.score
            sec = scored.section if section is None else section
            if role == "tool":
                sec = _FACTS  # a call and what it returned: a fact, whatever its words
            if role == "summary":
                # Kept by an earlier fold: never treated as small talk, and only facts age.
                score = max(score, _PREVIOUS_FLOOR)
                if sec not in (_PREFS, _DECISIONS) and (not scored.durable or _is_tool_line(body)):
                    score *= _AGE_DECAY
            elif score < self.min_score and role != "tool":
                continue  # small talk; every tool call stays a candidate, however plain
            items.append(_Item.make(tag, body, sec, score, order, role, scored.hints_slot, shapes))
        return items

    def _pieces(
        self, messages: Sequence[Mapping[str, Any]], lang: str
    ) -> Iterable[tuple[str, str]]:
        """(role, text) in conversation order; each tool call is one ("tool", line) piece."""
        pieces: list[tuple[str, str | _ToolLine]] = []
        calls: dict[str, _ToolLine] = {}
        # A long history repeats its tool calls and results: each distinct JSON text is parsed
        # and rendered once per fold.
        results: dict[str, str] = {}
        arg_texts: dict[str, str] = {}

        def render_args(args: object) -> str:
            if not isinstance(args, str):
                return _render_args(args)
            text = arg_texts.get(args)
            if text is None:
                text = arg_texts[args] = _render_args(args)
            return text

        for message in messages:
            if message.get("is_summary"):
                continue  # merged as a previous summary by _collect
            role = str(message.get("role") or "")
            content = message.get("content")
            if (
                type(content) is str
                and role not in ("tool", "function")
                and not message.get("tool_calls")
                and not message.get("function_call")
            ):
                if content:
                    pieces.append((role, content))  # the common case: plain text only
                continue
            if role in ("tool", "function"):
                call_id = str(message.get("tool_call_id") or "")
                self._attach(
                    pieces, calls, results, call_id, _result_text(content), message.get("name")
                )
                continue
            if isinstance(content, list):
                plain = [p for p in content if not _is_tool_block(p)]
                text = content_text(plain)
            else:
                text = content_text(content)
            if text:
                pieces.append((role, text))
            if isinstance(content, list):
                for part in content:
                    if not isinstance(part, Mapping):
                        continue
                    if part.get("type") == "tool_use":
                        line = _ToolLine(str(part.get("name")), render_args(part.get("input")))
                        calls[str(part.get("id"))] = line
                        pieces.append(("tool", line))
                    elif part.get("type") == "tool_result":
                        self._attach(
                            pieces,
                            calls,
                            results,
                            str(part.get("tool_use_id")),
                            _result_text(part.get("content")),
                            None,
                        )
            for call in message.get("tool_calls") or ():
                fn = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(fn, Mapping):
                    continue
                line = _ToolLine(str(fn.get("name")), render_args(fn.get("arguments")))
                calls[str(call.get("id"))] = line
                pieces.append(("tool", line))
            fc = message.get("function_call")
            if isinstance(fc, Mapping):
                line = _ToolLine(str(fc.get("name")), render_args(fc.get("arguments")))
                calls[f"function:{fc.get('name')}"] = line
                pieces.append(("tool", line))
        for role, piece in pieces:
            if isinstance(piece, str):
                yield role, piece
            else:
                yield "tool", self._tool_text(piece, lang)

    def _attach(
        self,
        pieces: list[tuple[str, str | _ToolLine]],
        calls: dict[str, _ToolLine],
        results: dict[str, str],
        call_id: str,
        result: str,
        name: object,
    ) -> None:
        line = calls.get(call_id) or (calls.get(f"function:{name}") if name else None)
        rendered = results.get(result)
        if rendered is None:
            rendered = results[result] = _render_result(result, self.tool_result_chars)
        if line is not None:
            line.result = rendered if line.result is None else f"{line.result} | {rendered}"
        elif rendered:
            orphan = _ToolLine(str(name) if name else "", "", rendered)
            pieces.append(("tool", orphan))

    @staticmethod
    def _tool_text(line: _ToolLine, lang: str) -> str:
        if not line.name:
            return f"{_TOOL_RESULT_WORD[lang]}{_COLON[lang]}{line.result}"
        text = f"{_TOOL_WORD[lang]} {line.name}({line.args})"
        if line.result:
            text += f" → {line.result}"
        return text

    # -- rendering under the cap --------------------------------------------------------------

    def _render_capped(self, items: list[_Item], lang: str, style: str, budget: int,
                       count: Callable[[str], int]) -> str:
        paragraph = style == "paragraph"
        if not items:
            return _fit(_NOTHING_TO_KEEP[lang], budget, count)
        _discount_repeats(items)
        ranked = sorted(items, key=lambda it: (-it.score, -it.order))
        titles = SECTION_TITLES[lang]
        header_cost = [count(f"{t}{_COLON[lang].strip()}\n") + 1 for t in titles]
        chosen: list[_Item] = []
        opened: set[int] = set()
        covered: set[str] = set()
        deferred: list[_Item] = []
        used = 0
        for pass_items in (ranked, deferred):
            misses = 0
            for it in pass_items:
                ids = {t.lstrip("0") for t in _ID_TOKEN.findall(it.text) if len(t) >= 3}
                if pass_items is ranked and ids and ids <= covered:
                    deferred.append(it)  # says nothing a better item has not said already
                    continue
                if paragraph:
                    it.cost = count(_as_sentence(it.text, lang))
                    extra = it.cost
                else:
                    it.cost = count(f"- {it.text}\n")
                    extra = it.cost + (0 if it.section in opened else header_cost[it.section])
                if used + extra <= budget:
                    used += extra
                    chosen.append(it)
                    opened.add(it.section)
                    covered |= ids
                    misses = 0
                else:
                    misses += 1
                    if misses > _MAX_MISSES or budget - used < 3:
                        break  # full: the rest would only be counted for nothing
        chosen.sort(key=lambda it: (-it.score, -it.order))
        text = _render(chosen, lang, paragraph)
        # The counter need not be additive: drop the weakest until the whole text fits.
        while chosen and count(text) > budget:
            chosen.pop()
            text = _render(chosen, lang, paragraph)
        if chosen:
            return text
        best = ranked[0].text
        return _fit(best if paragraph else _render([ranked[0]], lang, False), budget, count)


