"""The embedded offline summarizer: extractive, deterministic, Chinese and English.

No small offline model writes faithful summaries (0.5B-class models copy their input or drop
names and dates), so the summarizer that needs no key and no network picks sentences instead of
writing them. One fold is one linear pass:

1. **Split** (``sentences``). Message text is cut into sentences at Chinese (``。！？；…``) and
   Western (``. ! ? ;``) punctuation. A Western mark only ends a sentence when followed by a
   space, the end of the line or a Chinese character, so decimals (``3.14``), versions,
   URLs, emails and file paths stay whole; abbreviations (``Mr.``, ``e.g.``) do not split.
   Leading filler ("好的，", "ok so") and the name of the participant spoken to ("Totally
   agree, Mel.") are taken off. Each tool call becomes one compact line (``tools``): tool
   name, key arguments, trimmed result.
2. **Date** (``dates``). A message's ``timestamp``/``created_at``/``date`` key, or a dated first
   message of a session (``[8 May 2023] …``), gives the day of it and of the messages after it;
   the newest day of the previous summary carries into the next fold.
3. **Score** (``scoring``, word lists in ``lexicon``). All sentences of a fold are scanned
   together, once per pattern: statements of fact about the speaker or the world ("my X is
   Y", "I live in", "I'm allergic to", what the speaker did, "我叫", "我对…过敏", "我住在"),
   identifiers, money, dates, names and capitalised entities, numbers, and preference, decision
   and task cues. "love", "like", "agree" file nothing by themselves: a preference is the
   speaker's liking of a thing ("I love hiking"), a decision is a choice, and a task is asked
   for or taken on. The user's statements (and those of a named participant, who speaks for
   themselves) weigh more than the assistant's; small talk (``收到，谢谢``, ``ok thanks``,
   ``I totally agree``) scores zero; text that tries to instruct the summarizer is data.
4. **Thread** (``threads``). The assistant's proposal and the user's acceptance become one
   decision ("User agreed: How about Hotel Lumière…"); an instruction the assistant takes on
   for good is kept as one ("User asked: use grams for recipes"), and so is an errand it
   promises to do later, under open tasks until done; a request closes when a later
   statement or tool result fulfils it, and what fulfilled it is kept as a fact; what a tool
   found for the user's question is kept with the question ("… → It shipped, PRO 1Z9F44A2037").
5. **Merge** (``items``, ``slots``). The previous summary is parsed back into items (one per
   ``- `` line, with its section and date). Exact duplicates are dropped, and a newer statement
   replaces an older one about the same *slot*, clause by clause: same subject and attribute
   ("my favourite band is…", "I have 17 postcards" → "25 postcards", "我住在北京" → "我搬到上海
   了", a liked or disliked thing). The assistant echoing the user replaces nothing. A
   statement of change (``changes``) writes its new value into the older statement it changes
   or takes the old one out; a change given with its difference ("came down $600, so it's
   $17,300", ``differences``) finds the old value by arithmetic; a value said again of the
   same thing in the same measure, no word of change ("the medigap renewal came. $236/mo."
   after "$212 a month", ``restated``), replaces the old one.
6. **Cap** (``summarizer``, ``render``). Items are kept until the token cap, counted with the
   caller's counter, in this documented priority: items carried from the previous summary
   first claim up to 90% of the cap among themselves, and carry an incumbency bonus, so a
   fold of new material cannot evict them all at once; within any pass the highest value
   (score) goes first and, at equal value, the newest, so over the cap the lowest value and
   then the oldest leave first. A statement whose content words mostly repeat one already
   kept is skipped. Items are written one per line (``- …``) under the sections the LLM
   prompts use, by day within a section, a ``[day]`` prefix opening each run of one day. The
   user's own statements go untagged; anyone else's follow their tag (``Assistant: ``,
   ``Caroline: ``, ``Tool …``); a tag on every line was 7-8% of the summary's tokens.

Example:
    >>> from chatfold.summarizers.base import SummaryRequest
    >>> msgs = [{"role": "user", "content": "Hi! My budget is $5000 and I'm allergic to peanuts."},
    ...         {"role": "assistant", "content": "Thanks, noted."}]
    >>> s = ExtractiveSummarizer()
    >>> print(s.summarize(SummaryRequest("", msgs, "en", max_tokens=100)))
    Preferences:
    - My budget is $5000 and I'm allergic to peanuts.
"""

from __future__ import annotations

from .lexicon import DEFAULT_INCUMBENT_BONUS, DEFAULT_MIN_SCORE, DEFAULT_TOOL_RESULT_CHARS
from .sentences import split_sentences
from .summarizer import ExtractiveSummarizer

__all__ = [
    "DEFAULT_INCUMBENT_BONUS",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_TOOL_RESULT_CHARS",
    "ExtractiveSummarizer",
    "split_sentences",
]
