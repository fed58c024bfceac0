"""The embedded offline summarizer: extractive, deterministic, Chinese and English.

No small offline model writes faithful summaries (0.5B-class models copy their input or drop
names and dates), so the summarizer that needs no key and no network picks sentences instead of
writing them. One fold is one linear pass:

1. **Split.** Message text is cut into sentences at Chinese (``。！？；…``) and Western
   (``. ! ? ;``) punctuation. A Western mark only ends a sentence when followed by a space, the
   end of the line or a Chinese character, so decimals (``3.14``), versions (``v1.2.3``), URLs,
   emails and file paths stay whole; abbreviations (``Mr.``, ``e.g.``) and initials do not
   split. Each tool call becomes one compact line: tool name, key arguments, trimmed result.
2. **Score.** All sentences of a fold are scanned together, once per pattern: identifiers
   (emails, URLs, paths, order numbers, versions), money, dates and times, names and
   capitalised entities, numbers, and preference, decision and task cues. The user's own
   statements weigh more than the assistant's; pleasantries (``你好``, ``谢谢``, ``ok``,
   ``thanks``…) score zero and are dropped, and text that tries to instruct the summarizer
   ("ignore the above…") is only a low-scoring sentence, never an instruction.
3. **Merge.** The previous summary is parsed back into its sections (a plain paragraph is split
   into sentences). Exact and near duplicates are dropped, and a newer statement replaces an
   older one about the same *slot* (who + what: the user's budget, where the user lives, a
   liked or disliked thing), clause by clause. The assistant echoing the user replaces nothing.
   Everything else from the previous summary is carried forward.
4. **Cap.** The highest-scoring items are kept until the token cap is reached, counted with
   the caller's counter. Previous items lose a little score with age, except durable ones
   (preferences, decisions, identifiers, names); older variants of a repeated statement, and items
   whose identifiers an item already kept shows, give way first. Items are written in the
   sections the LLM prompts use, most important first.

Example:
    >>> from chatfold.summarizers.base import SummaryRequest
    >>> msgs = [{"role": "user", "content": "Hi! My budget is $5000 and I'm allergic to peanuts."},
    ...         {"role": "assistant", "content": "Thanks, noted."}]
    >>> s = ExtractiveSummarizer()
    >>> print(s.summarize(SummaryRequest("", msgs, "en", max_tokens=100)))
    Preferences:
    - User: My budget is $5000 and I'm allergic to peanuts.
"""

from __future__ import annotations

from .lexicon import DEFAULT_MIN_SCORE, DEFAULT_TOOL_RESULT_CHARS
from .sentences import split_sentences
from .summarizer import ExtractiveSummarizer

__all__ = [
    "DEFAULT_MIN_SCORE",
    "DEFAULT_TOOL_RESULT_CHARS",
    "ExtractiveSummarizer",
    "split_sentences",
]
