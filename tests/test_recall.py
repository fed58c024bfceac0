"""Recall: terms, the shared BM25 ranking, and recall in a stored conversation's context."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from chatfold import InvalidArgumentError, InvalidPolicyError, Policy, to_anthropic, to_openai
from chatfold.recall import RECALL_KEY, Postings, merge_groups, query_groups, rank, terms
from chatfold.session import AsyncConversation, Conversation
from chatfold.stores import MemoryStore, SQLiteStore


class Forgetful:
    """A summarizer that keeps nothing but a fixed gist: every detail is lost to it."""

    accepts_request = True

    def summarize(self, request: Any) -> str:
        if request.language == "zh":
            return "用户聊了很多话题。"
        return "The user chatted about many topics."


def _filler(conv: Conversation, n: int, zh: bool = False) -> None:
    for i in range(n):
        if zh:
            conv.append({"role": "user", "content": f"我们来聊第{i}个话题：天气、运动和午饭。"})
            conv.append({"role": "assistant", "content": f"好的，第{i}个话题很有意思。"})
        else:
            conv.append({"role": "user", "content": f"Topic {i}: weather, sports and lunch."})
            conv.append({"role": "assistant", "content": f"Sure, topic {i} is fun."})


def _conv(store: Any = None, **policy: Any) -> Conversation:
    options = {"trigger_tokens": 600, "recall_tokens": 150, "keep": 4, **policy}
    return Conversation("c", store=store or MemoryStore(), system="Be terse.",
                        summarizer=Forgetful(), policy=Policy(**options))


# -- terms and ranking -----------------------------------------------------------------------


def test_terms_words_stop_words_and_plurals() -> None:
    assert terms("The dogs AND the Cats; a b 7 it's") == ["dog", "cat", "7"]
    assert terms("ＦＵＬＬ width") == ["full", "width"]  # NFKC
    assert terms("x" * 200) == ["x" * 64]


def test_terms_chinese_bigrams_and_mixed_text() -> None:
    assert terms("我爱北京") == ["我爱", "爱北", "北京"]
    assert terms("去杭州 trip") == ["去杭", "杭州", "trip"]
    assert terms("猫") == ["猫"]
    assert terms("GPT4很好") == ["gpt4", "很好"]


def test_query_groups_drop_request_words_and_chinese_particles() -> None:
    # The request and its particles name nothing worth finding; the topic's bigrams stay.
    assert query_groups("你还记得我说的那家酒店吗？") == [("家酒",), ("酒店",)]
    assert query_groups("之前提到的快递单号是多少来着") == [("快递",), ("递单",), ("单号",)]
    # A character between two particles keeps a bigram, so no word character goes unsearched.
    assert query_groups("就象个蹩") == [("象个",), ("个蹩",)]
    # Mixed Chinese and English, digits, and a query of nothing but particles.
    assert query_groups("Do you remember the 酒店 wifi密码?") == [
        ("酒店",), ("wifi",), ("密码",)]
    assert query_groups("我的") == [("我的",)]
    assert query_groups("") == []


def test_query_groups_search_english_inflections_as_one_term() -> None:
    assert query_groups("When did she paint it?") == [("paint", "painted", "painting")]
    assert query_groups("baked")[0][:3] == ("baked", "bake", "bak")
    assert query_groups("planned")[0][1:] == ("plan", "planning")
    assert query_groups("studied") == [("studied", "study", "studying")]
    # Names (capitalised inside a sentence, or all capitals) are not inflected.
    assert query_groups("When did Caroline join the LGBTQ group?") == [
        ("caroline",), ("join", "joined", "joining"), ("lgbtq",),
        ("group", "grouped", "grouping")]
    # The variants of a group are scored as one term: a message holding two of them counts
    # once, and the group's document frequency is the union's.
    postings = Postings(docs=4, total_length=8, hits={
        "paint": ((1, 2),), "painted": ((1, 2), (3, 2)), "sunrise": ((3, 2),)})
    merged = merge_groups(postings, [("paint", "painted"), ("sunrise",)])
    assert merged.hits == {"paint": [(1, 2), (3, 2)], "sunrise": ((3, 2),)}
    assert rank(merged, through_seq=4)[0][0] == 3


def test_rank_prefers_rare_terms_short_messages_and_respects_limits() -> None:
    postings = Postings(docs=10, total_length=40, hits={
        "rare": ((3, 4),),
        "often": ((1, 4), (2, 4), (3, 4), (5, 4), (6, 4)),
        "short": ((7, 2), (8, 8)),
    })
    ranked = rank(postings, through_seq=10)
    assert ranked[0][0] == 3  # both terms, one of them rare
    assert dict(ranked)[7] > dict(ranked)[8]  # the same term in a shorter message
    assert 7 not in dict(rank(postings, through_seq=6))
    assert 3 not in dict(rank(postings, through_seq=10, exclude=[3]))
    assert len(rank(postings, through_seq=10, limit=2)) == 2
    # Equal scores: the later message first, so the order never depends on dict order.
    tie = rank(Postings(docs=2, total_length=4, hits={"t": ((1, 2), (2, 2))}), through_seq=2)
    assert [s for s, _ in tie] == [2, 1]


# -- recall in the context -------------------------------------------------------------------


def test_recall_brings_back_a_lost_detail_after_the_summary() -> None:
    conv = _conv()
    conv.append({"role": "user", "content": "My locker code is 4471, remember it."})
    conv.append({"role": "assistant", "content": "Noted."})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "What is my locker code?"})
    context = conv.context()
    assert "4471" not in conv.summary
    recall = context[2]
    assert recall["role"] == "system" and "is_recall" not in recall  # provider-safe
    assert recall["content"].startswith("Recalled from earlier in this conversation")
    assert "[#1] " in recall["content"] and "4471" in recall["content"]
    assert context[1]["content"].startswith("Summary of the earlier conversation")
    hit = conv.last_recall
    assert hit.seqs == (1,) and hit.hits[0].seq == 1
    assert hit.query == "What is my locker code?"
    assert 0 < hit.tokens <= 150
    stats = conv.stats()
    assert stats.recalled == (1,) and stats.recall_tokens == hit.tokens
    # The whole context stays within the trigger.
    assert sum(conv.counter.count_message(m) for m in context) <= 600


def test_context_with_recall_stays_within_the_trigger_every_turn() -> None:
    conv = _conv(trigger_tokens=500, recall_tokens=120)
    for i in range(80):
        conv.append({"role": "user", "content": f"Fact {i}: item{i} costs {i * 13} euros."})
        conv.append({"role": "assistant", "content": f"Noted item{i}."})
        conv.append({"role": "user", "content": f"How much was item{i // 2}?"})
        context = conv.context()
        assert sum(conv.counter.count_message(m) for m in context) <= 500
        conv.append({"role": "assistant", "content": "Let me check."})
    assert conv.stats().folds > 0 and conv.last_recall.hits


def test_recall_never_repeats_the_recent_window_pinned_messages_or_the_summary() -> None:
    class Copying(Forgetful):
        def summarize(self, request: Any) -> str:
            return "The user said: my passport number is X123."

    conv = Conversation("c", store=MemoryStore(), summarizer=Copying(),
                        policy=Policy(trigger_tokens=600, recall_tokens=150))
    conv.append({"role": "user", "content": "my passport number is X123", "pinned": True})
    conv.append({"role": "user", "content": "my passport number is X123"})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "zebra stripes are recent"})
    conv.append({"role": "user", "content": "passport number zebra?"})
    conv.context()
    # seq 1 is pinned, seq 2 is said by the summary, the zebra message is still verbatim.
    assert conv.last_recall.hits == () and conv.last_recall.message is None
    assert not any(m.get(RECALL_KEY) for m in conv.raw_context())


def test_a_recalled_tool_result_comes_with_its_call() -> None:
    conv = _conv(recall_tokens=200)
    conv.append({"role": "user", "content": "Find me a hotel."})
    conv.append({"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_7", "type": "function",
        "function": {"name": "book_hotel", "arguments": '{"city": "Lyon"}'}}]})
    conv.append({"role": "tool", "tool_call_id": "call_7",
                 "content": '{"hotel": "Lakeview", "confirmation": "QX9"}'})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "What was the confirmation code?"})
    conv.context()
    (hit,) = conv.last_recall.hits
    assert hit.seq == 3 and hit.seqs == (2, 3)
    assert "book_hotel" in hit.text and "QX9" in hit.text and "tool (book_hotel" in hit.text
    # Rendered as text inside one system message: no tool message can be orphaned.
    to_openai(conv.context())


def test_recall_finds_an_inflected_form_and_a_chinese_topic_among_particles() -> None:
    conv = _conv(trigger_tokens=800, recall_tokens=200)
    conv.append({"role": "user", "content": "Last May I painted a lake sunrise in Kyoto."})
    conv.append({"role": "user", "content": "我们住的那家酒店叫湖畔居，房间在十二楼。"})
    _filler(conv, 40, zh=True)
    conv.append({"role": "user", "content": "Where did I paint the sunrise?"})
    conv.context()
    assert conv.last_recall.seqs[:1] == (1,)
    conv.context(query="你还记得我们住的酒店是哪一家吗？")
    assert conv.last_recall.hits[0].seq == 2


def test_recall_finds_a_fact_told_in_other_words() -> None:
    # "dog" finds the retriever, "called" finds "named", "mother" finds "mom": the words a
    # personal fact is told in are not always the ones the question uses.
    conv = _conv(trigger_tokens=800, recall_tokens=200)
    conv.append({"role": "user", "content": "We have a golden retriever named Biscuit."})
    conv.append({"role": "user", "content": "My mom lives in Tucson."})
    _filler(conv, 40)
    conv.context(query="What's our dog called?")
    assert conv.last_recall.hits[0].seq == 1
    conv.context(query="Where does my mother live?")
    assert conv.last_recall.hits[0].seq == 2


def test_a_recalled_question_comes_with_its_answer() -> None:
    conv = _conv(recall_tokens=200)
    conv.append({"role": "user", "content": "Which airline did we book for the Oslo trip?"})
    conv.append({"role": "assistant", "content": "Norwegian, flight DY1302."})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "Remind me about the Oslo trip airline"})
    conv.context()
    (hit,) = conv.last_recall.hits
    assert hit.seq == 1 and hit.seqs == (1, 2) and "DY1302" in hit.text
    assert conv.last_recall.seqs == (1, 2)


def test_a_weak_hit_is_not_worth_its_tokens() -> None:
    conv = _conv(recall_tokens=200)
    conv.append({"role": "user", "content":
                 "The quokka sanctuary on Rottnest Island opens at nine on Sundays."})
    conv.append({"role": "user", "content": "Nine people came to the barbecue with salads."})
    _filler(conv, 40)
    conv.append({"role": "user", "content":
                 "Does the quokka sanctuary on Rottnest Island open at nine on Sundays?"})
    conv.context()
    # The second message shares only "nine": far below the first, not worth its tokens.
    assert conv.last_recall.seqs == (1,)
    conv.context(query="nine")  # alone, the common word is the best there is
    assert set(conv.last_recall.seqs) == {1, 2}


def test_chinese_conversation_gets_a_chinese_recall() -> None:
    conv = _conv(trigger_tokens=800, recall_tokens=200)
    conv.append({"role": "user", "content": "我的快递单号是SF1234567，寄到杭州西湖区。"})
    conv.append({"role": "assistant", "content": "记下了。"})
    _filler(conv, 40, zh=True)
    conv.append({"role": "user", "content": "我的快递寄到哪里了？"})
    context = conv.context()
    recall = context[2]["content"]
    assert recall.startswith("从本对话早先的原始消息中检索到的内容")
    assert "SF1234567" in recall and "[#1] " in recall
    body = to_anthropic(conv.raw_context())
    assert "SF1234567" in body["system"]  # system notes go to Anthropic's system field
    assert all("SF1234567" not in json.dumps(m, ensure_ascii=False) for m in body["messages"])


def test_explicit_query_and_no_recall_when_off_or_nothing_archived() -> None:
    conv = _conv()
    conv.append({"role": "user", "content": "The wifi password is hunter2."})
    assert conv.context(query="wifi password") and conv.last_recall.message is None  # no fold
    _filler(conv, 40)
    conv.append({"role": "user", "content": "Anything else?"})
    conv.context()
    assert conv.last_recall.hits == ()
    conv.context(query="wifi password")
    assert conv.last_recall.seqs == (1,)
    off = Conversation("c", store=conv.store, summarizer=Forgetful(),
                       policy=Policy(trigger_tokens=600, recall_tokens=0))
    assert not any("hunter2" in m["content"] for m in off.context(query="wifi password")[2:3])
    assert off.last_recall.message is None and off.stats().recalled == ()


def test_recall_budget_bounds_a_long_hit() -> None:
    conv = _conv(recall_tokens=80)
    conv.append({"role": "user", "content": "quasar " + "lorem ipsum dolor " * 200})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "tell me about the quasar"})
    conv.context()
    r = conv.last_recall
    assert r.hits and r.tokens <= 80 and r.hits[0].text.endswith("…")


def test_recall_from_sqlite_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    with _conv(store=SQLiteStore(path)) as conv:
        conv.append({"role": "user", "content": "Our anniversary is on 12 March."})
        _filler(conv, 40)
    with _conv(store=SQLiteStore(path)) as conv:
        conv.append({"role": "user", "content": "When is our anniversary?"})
        conv.context()
        assert conv.last_recall.seqs == (1,)


def test_async_conversation_recalls_too() -> None:
    async def main() -> None:
        conv = AsyncConversation("c", store=MemoryStore(), summarizer=Forgetful(),
                                 policy=Policy(trigger_tokens=600, recall_tokens=150))
        await conv.aappend({"role": "user", "content": "The boat is named Starling."})
        for i in range(40):
            await conv.aappend([{"role": "user", "content": f"Topic {i}: weather."},
                                {"role": "assistant", "content": f"Sure, topic {i}."}])
        await conv.aappend({"role": "user", "content": "What is the boat named?"})
        context = await conv.acontext()
        assert context[0]["content"].startswith("Summary") and "Starling" in context[1]["content"]
        assert conv.last_recall.seqs == (1,)
        assert (await conv.astats()).recalled == (1,)
        raw = await conv.araw_context(query="boat")
        assert raw[0]["is_summary"] is True and raw[1][RECALL_KEY] is True
        tool = conv.recall_tool()
        assert "Starling" in await tool.ahandler("boat")
        assert "Starling" in tool.handler("boat", 1)

    asyncio.run(main())


def test_recall_tool_schemas_and_handler() -> None:
    conv = _conv()
    tool = conv.recall_tool()
    assert tool.openai["function"]["name"] == tool.anthropic["name"] == tool.name \
        == "search_conversation_history"
    assert tool.openai["function"]["parameters"] is tool.anthropic["input_schema"] or \
        tool.openai["function"]["parameters"] == tool.anthropic["input_schema"]
    assert tool.anthropic["input_schema"]["required"] == ["query"]
    assert tool.handler("anything") == "No earlier message matches that query."
    conv.append({"role": "user", "content": "Grandma's recipe uses cardamom."})
    conv.append({"role": "user", "content": "The cardamom is from Kerala."})
    _filler(conv, 40)
    conv.context()
    text = tool.handler("cardamom", limit=1)
    assert text.count("[#") == 1 and "cardamom" in text
    both = tool.handler(query="cardamom")
    assert "[#1] " in both and "[#2] " in both
    with pytest.raises(InvalidArgumentError, match="limit"):
        tool.handler("cardamom", limit=0)
    with pytest.raises(InvalidArgumentError, match="query"):
        tool.handler(None)  # type: ignore[arg-type]
    assert "cardamom" in asyncio.run(tool.ahandler("cardamom"))


def test_policy_checks_recall_tokens() -> None:
    assert Policy(trigger_tokens=1000, recall_tokens=250).fold_trigger == 750
    assert Policy(trigger_tokens=1000, recall_tokens=250).target <= 750
    with pytest.raises(InvalidPolicyError, match="recall_tokens"):
        Policy(trigger_tokens=1000, recall_tokens=1000)
    with pytest.raises(InvalidPolicyError, match="recall_tokens"):
        Policy(recall_tokens=-1)
    with pytest.raises(InvalidPolicyError, match="trigger_tokens - recall_tokens"):
        Policy(trigger_tokens=1000, target_tokens=900, recall_tokens=200)


def test_recall_is_on_by_default_in_a_conversation_with_a_searchable_store() -> None:
    conv = Conversation("c", store=MemoryStore(), summarizer=Forgetful(),
                        policy=Policy(trigger_tokens=600))
    assert conv.policy.recall_tokens == 150  # a quarter of the trigger
    assert conv.policy == Policy(trigger_tokens=600, recall_tokens=150)  # auto fields derived
    conv.append({"role": "user", "content": "The wifi password is hunter2."})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "What was the wifi password?"})
    context = conv.context()
    assert conv.last_recall.seqs == (1,) and "hunter2" in context[1]["content"]
    assert sum(conv.counter.count_message(m) for m in context) <= 600
    # Explicit 0 is off; an explicit target keeps its room; a tiny budget gets none.
    assert Policy(recall_tokens=0).with_auto_recall(True).recall_tokens == 0
    assert Policy(trigger_tokens=1000, target_tokens=900).with_auto_recall(True) \
        .recall_tokens == 100
    assert Policy(trigger_tokens=200).with_auto_recall(True).recall_tokens == 0
    # An explicit summary cap that would not fit below the lower fold trigger: recall off.
    assert Policy(trigger_tokens=800, summary_max_tokens=700).with_auto_recall(True) \
        .recall_tokens == 0
    # A bare Policy (Folder, compress) folds at the whole trigger.
    assert Policy(trigger_tokens=600).recall_tokens is None
    assert Policy(trigger_tokens=600).fold_trigger == 600


def test_auto_recall_is_off_for_a_store_without_search() -> None:
    class Plain(MemoryStore):
        search = None  # a custom store written before recall

    conv = Conversation("c", store=Plain(), summarizer=Forgetful(),
                        policy=Policy(trigger_tokens=600))
    assert conv.policy.recall_tokens == 0
    conv.append({"role": "user", "content": "The code is 12."})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "What is the code?"})
    assert conv.context() and conv.last_recall.message is None


def test_a_store_without_search_is_named_when_recall_is_on() -> None:
    class Plain(MemoryStore):
        search = None  # a custom store written before recall

    conv = _conv(store=Plain())
    conv.append({"role": "user", "content": "The code is 12."})
    _filler(conv, 40)
    conv.append({"role": "user", "content": "What is the code?"})
    with pytest.raises(InvalidArgumentError, match="Plain has no search index"):
        conv.context()
