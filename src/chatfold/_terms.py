"""Search terms: what a text is indexed under, and how a question is read into terms.

A text is NFKC-normalised and case-folded; runs of letters and digits become words (English
stop words dropped, a plural ``s`` removed) and runs of CJK characters become overlapping
character bigrams, so Chinese needs no dictionary. A question is read more closely than a
message (:func:`query_groups`): the words of the request itself are dropped, Chinese bigrams
touching a particle are not searched, and an English word brings its inflections. Every store
indexes with :func:`message_terms` and scopes its index with :func:`scope_token`;
:mod:`chatfold.recall` ranks what they find. Standard library only.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from .messages import message_text

__all__ = ["message_terms", "query_groups", "scope_token", "terms"]

MAX_QUERY_TERMS = 32
"""Longest query, in distinct terms (a pasted document searches by its first terms)."""
MAX_TERM_CHARS = 64
"""Longer words (hashes, base64) are cut to this many characters."""
MAX_MESSAGE_TERMS = 4000
"""A huge message (a pasted file) is indexed by its first terms only."""

_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0003134f]+"
)
_STOP_WORDS = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
s t don ll ve re d m
"""
_STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    """Harman's S-stemmer: plurals meet their singular (``dogs`` -> ``dog``)."""
    if len(word) > 4 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def terms(text: str, limit: int | None = None) -> list[str]:
    """The distinct search terms of ``text``, in order of first appearance.

    Example:
        >>> terms("My dogs' names are Rex and Max; 我喜欢猫")
        ['dog', 'name', 'rex', 'max', '我喜', '喜欢', '欢猫']
    """
    out: dict[str, None] = {}
    # ASCII text (most of it) needs neither normalisation nor the CJK split.
    ascii_only = text.isascii()
    norm = text.lower() if ascii_only else unicodedata.normalize("NFKC", text).casefold()
    for run in _WORD.findall(norm):
        if ascii_only or run.isascii():
            _words(run, out)
        else:
            pos = 0
            for m in _CJK.finditer(run):
                _words(run[pos : m.start()], out)
                chars = m.group()
                if len(chars) == 1:
                    out.setdefault(chars)
                for i in range(len(chars) - 1):
                    out.setdefault(chars[i : i + 2])
                pos = m.end()
            _words(run[pos:], out)
        if limit is not None and len(out) >= limit:
            break
    found = list(out)
    return found if limit is None else found[:limit]


# Query side only (the index keeps every term, so these can change without re-indexing).
_QUERY_STOP_WORDS = "remember recall said say saying mention mentioned told tell earlier ago please"
_QUERY_STOP = frozenset(_QUERY_STOP_WORDS.split())
"""English words of the request for recall itself ("do you remember what I said about")."""
_ZH_STOP = re.compile(
    "什么|怎么|为何|多少|几个|哪里|哪些|何时|记得|之前|以前|刚才|请问|一下|告诉|知道|提到|说过|说的|来着"
    "|[的了着过吗呢吧啊呀哦嘛么是我你您他她它们这那哪谁个就都也还又很在和与]")
"""Question and request words, particles, pronouns and adverbs: a Chinese query is cut at them,
as a bigram spanning one names nothing worth finding."""
MAX_VARIANTS = 6
"""Inflected forms searched per English query word (its group scores as one term)."""


def _variants(term: str) -> list[str]:
    """``term`` and the inflections a message may use for it (paint: painted, painting;
    baked: bake, baking): searched together and scored as one term, so the index needs no
    stemmer beyond plurals. A guessed form that no message holds has no postings."""
    if not term.isascii() or not term.isalpha() or len(term) < 3:
        return [term]
    out = dict.fromkeys([term])
    if term.endswith("ied") and len(term) > 4:
        out.update(dict.fromkeys([term[:-3] + "y", term[:-3] + "ying"]))
    elif term.endswith(("ed", "ing")) and len(term) > 4:
        base = term[:-2] if term.endswith("ed") else term[:-3]
        sibling = base + ("ing" if term.endswith("ed") else "ed")
        if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "aeiouls":
            stems = [base[:-1]]  # planned -> plan
        elif len(base) > 2 and base[-1] not in "aeiouwy" and base[-2] in "aeiou" \
                and base[-3] not in "aeiou":
            stems = [base + "e", base]  # baked -> bake (and bak, never a word: no postings)
        else:
            stems = [base]  # painted -> paint
        out.update(dict.fromkeys([*stems, sibling]))
    elif term.endswith("e"):
        out.update(dict.fromkeys([term + "d", term[:-1] + "ing"]))
    elif term[-1] in "aiou":  # wifi, radio, menu: rarely a verb
        pass
    elif term.endswith("y") and term[-2] not in "aeiou":
        out.update(dict.fromkeys([term[:-1] + "ied", term + "ing"]))
    else:
        out.update(dict.fromkeys([term + "ed", term + "ing"]))
        if len(term) <= 4 and term[-2] in "aeiou" and term[-3] not in "aeiou" \
                and term[-1] not in "aeiouwxy":
            out.update(dict.fromkeys([term + term[-1] + "ed", term + term[-1] + "ing"]))
    return [t for t in out if len(t) > 2 and t not in _STOP][:MAX_VARIANTS]


def query_groups(text: str, limit: int = MAX_QUERY_TERMS) -> list[tuple[str, ...]]:
    """The term groups a recall searches for ``text``, in order: each group is one query term
    and its variants (see :func:`_variants`), scored as one term.

    Words of the request itself are dropped (English "remember", "said"; Chinese 什么, 多少,
    之前...), and so is a Chinese bigram touching such a word or a particle or pronoun (的, 了,
    吗, 我...), unless a character would be left out of every bigram; if nothing is left,
    every term of ``text`` is searched.

    Example:
        >>> query_groups("你还记得我说的那家酒店吗？")
        [('家酒',), ('酒店',)]
        >>> query_groups("When did she paint it?")
        [('paint', 'painted', 'painting')]
    """
    norm = unicodedata.normalize("NFKC", text).casefold()
    names = _names(text)
    out: dict[str, None] = {}
    for run in _WORD.findall(norm):
        if run.isascii():
            _words(run, out)
            continue
        pos = 0
        for m in _CJK.finditer(run):
            _words(run[pos : m.start()], out)
            _zh_query_bigrams(m.group(), out)
            pos = m.end()
        _words(run[pos:], out)
        if len(out) >= limit:
            break
    found = [t for t in out if t not in _QUERY_STOP][:limit] or terms(text, limit)
    return [(t,) if t in names else (*_variants(t), *_RELATED.get(t, ())) for t in found]


# Words a message says for what a question asks about: "What's our dog called?" finds "We have a
# golden retriever named Biscuit". Searched with the word and scored as it; a small table of the
# family, pets and naming words personal facts are told in, not a thesaurus.
_RELATED_GROUPS = (
    "dog puppy retriever labrador poodle terrier beagle husky corgi bulldog spaniel dachshund",
    "cat kitten kitty",
    "mother mom mum mama",
    "father dad papa",
    "wife husband spouse partner",
    "kid child children son daughter",
    "called named name",
    "allergy allergic",
    "birthday born",
    "job work employer",
    "phone cell mobile",
)


def _related_table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for group in _RELATED_GROUPS:
        words = [_stem(w) for w in group.split()]
        for w in words:
            table[w] = tuple(o for o in words if o != w)
    return table


_RELATED = _related_table()


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _names(text: str) -> set[str]:
    """Words capitalised inside a sentence, or all capitals (Caroline, LGBTQ): names, which
    are not inflected (their variants would only cost look-ups)."""
    out = set()
    for m in _LATIN_WORD.finditer(text, 0, 4000):  # a query is read up to 32 terms anyway
        word = m.group()
        before = text[max(0, m.start() - 8) : m.start()].rstrip()
        if word[0].isupper() and ((word.isupper() and len(word) > 1) or
                                  (before and before[-1] not in ".!?:\"'“‘([")):
            out.add(word.lower())
    return out


def _zh_query_bigrams(chars: str, out: dict[str, None]) -> None:
    if len(chars) == 1:
        out.setdefault(chars)
        return
    stop = [False] * len(chars)
    for m in _ZH_STOP.finditer(chars):
        stop[m.start() : m.end()] = [True] * (m.end() - m.start())
    covered = [False] * len(chars)
    for i in range(len(chars) - 1):
        if not stop[i] and not stop[i + 1]:
            out.setdefault(chars[i : i + 2])
            covered[i] = covered[i + 1] = True
    for i, (s, c) in enumerate(zip(stop, covered, strict=True)):
        if not s and not c:  # a word character between stop words: its bigram with one
            j = i if i + 1 < len(chars) else i - 1
            out.setdefault(chars[j : j + 2])


_TERM_OF: dict[str, str] = {}
"""Word -> term ("" for a dropped word): words repeat, so each is stemmed once (bounded)."""


def _words(text: str, out: dict[str, None]) -> None:
    if not text:
        return
    term = _TERM_OF.get(text)
    if term is None:
        if text in _STOP or (len(text) == 1 and not text.isdigit()):
            term = ""
        else:
            term = _stem(text)[:MAX_TERM_CHARS]
        if len(_TERM_OF) < 200_000:
            _TERM_OF[text] = term
    if term:
        out.setdefault(term)


def message_terms(message: Mapping[str, Any]) -> list[str]:
    """The terms a store indexes a message under: its text, tool calls and results included."""
    return terms(message_text(message), MAX_MESSAGE_TERMS)


def scope_token(namespace: str, conversation_id: str) -> str:
    """A short letters-and-digits token naming one conversation of one namespace.

    Full-text stores prefix every indexed term with it, so a term's posting list holds one
    conversation's entries only (stores still filter on the ids, so a collision cannot leak).
    """
    digest = hashlib.blake2b(f"{namespace}\0{conversation_id}".encode(), digest_size=8)
    return "z" + digest.hexdigest()
