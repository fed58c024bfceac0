"""Likely replacements: an English statement of change that shares a word few others use with
one older statement of the user, and gives a value of a kind that statement holds, likely
replaces it.

``changes.py`` rewrites an older statement only when a change surely speaks of it: most of the
change's words are the older one's, or the same thing is measured. People say a change in
other words: "Change of plan, her nephew Desmond is taking care of Juno instead" changes
"Marguerite from next door is watching Juno while I'm in Denver". What ties them is one word
both use and almost nothing else in the fold does ("Juno"), and values of one kind on each side
(a name for a name, a time for a time). That is not sure enough to rewrite what the user said
(rewrites so paired, logged on long chats, wrote "Porto" into a flight to Raleigh), but enough
to say which of the two holds now when there is room for only one of them.

Not in Chinese: a character pair ties statements about other things far more often than an
English word does, and "了" or "现在" says a change in most sentences; demoted so, old facts
went sooner (measured: the held-out probes and the Chinese drift set's 16-fold retention both
fell).
"""

from __future__ import annotations

import re
from collections import Counter

from .changes import _family, _says_change, _Shape, _topic
from .items import _USER_TAGS, _is_tool_line, _Item
from .lexicon import _DONE_MARK, _TASKS, is_latin
from .scoring import _is_question
from .threads import _TIME_WORDS

_RARE = 3  # statements of the fold that may share an anchor: the two, and one echo

_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")


def _anchors(body: str) -> frozenset[str]:
    words = set(_topic(body.replace(_DONE_MARK["zh"], "").replace(_DONE_MARK["en"], "")))
    if is_latin(body):  # (a Chinese statement is only ever the older one, seldom in English)
        words.update(w.lower() for w in _CAPITAL.findall(body))
        words -= _TIME_WORDS  # (days and times tie any two statements: no anchor)
    return frozenset(words)


_DEMOTED = 0.5  # what an older statement a newer one likely replaces keeps of its score


def prefer_newer(items: list[_Item]) -> None:
    """Where a statement of change likely replaces an older one, but not surely enough to
    rewrite it (a shared rare word, values of one kind on each side), the newer one takes the
    older one's claim on the room and the older one gives up half of its own: with little room
    the summary keeps what holds now, with more it keeps both."""
    users = [k for k, it in enumerate(items)
             if it.tag in _USER_TAGS and not _is_tool_line(it.body)
             and it.section != _TASKS]
    # (Only this fold's English statements of change look for what they replace: a fold with
    # none, every Chinese one among them, reads no statement's words.)
    changes = [n for n in users if (it := items[n]).msg >= 0 and not it.replaces
               and is_latin(it.body) and not _is_question(it.body) and _says_change(it.body)]
    if len(users) < 2 or not changes:
        return
    words = {k: _anchors(items[k].body) for k in users}
    used = Counter(w for k in range(len(items))
                   for w in (words[k] if k in words else _anchors(items[k].body)))
    for n in changes:
        it = items[n]
        new = _Shape(it.body)
        if not new.values:
            continue
        found: list[int] = []
        for k in users:
            if k == n or items[k].order >= it.order:
                continue
            if not any(used[w] <= _RARE for w in words[n] & words[k]):
                continue
            was = _Shape(items[k].body)
            kinds = {_family(v) for v in new.values - was.values}
            if any(_family(v) in kinds for v in was.values - new.values):
                found.append(k)
        if len(found) == 1:
            old = items[found[0]]
            it.score = max(it.score, old.score)
            old.score *= _DEMOTED
