"""chatfold: keep LLM conversations inside a token budget by rolling summarization.

The original system prompt is never touched, all older history folds into exactly one rolling
summary (the previous summary plus the newly evicted messages), and the last messages stay
verbatim: ``pinned system + summary + recent window``.

Example:
    >>> from chatfold import maybe_compress
    >>> class LLM:
    ...     def summarize(self, text: str) -> str:
    ...         return "用户在计划杭州三日游，预算 3000 元。"
    >>> messages = [{"role": "system", "content": "你是旅行助手。"}]
    >>> messages += [{"role": "user", "content": "我想去杭州玩三天，预算三千元左右。" * 30}] * 12
    >>> folded = maybe_compress(messages, LLM(), max_tokens=3000, keep=4)
    >>> folded[1]["content"]
    '历史摘要: 用户在计划杭州三日游，预算 3000 元。'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import (
    ChatfoldError,
    ContextOverflowError,
    ConversationFileError,
    ConversationNotFoundError,
    FoldConflictError,
    InvalidArgumentError,
    InvalidConversationIdError,
    InvalidMessageError,
    InvalidPolicyError,
    InvalidSummarizerError,
    MissingDependencyError,
    PluginConflictError,
    StoreCorruptError,
    StoreError,
    StoreUnavailableError,
    SummarizerError,
    TokenizerError,
    UnknownPluginError,
)
from ._registry import (
    get_store,
    get_summarizer,
    list_stores,
    list_summarizers,
    register_store,
    register_summarizer,
)
from .compat import compress, maybe_compress
from .fold import (
    AsyncSummarizer,
    Folder,
    FoldPlan,
    FoldResult,
    Policy,
    Summarizer,
    SummaryRequest,
    apply_fold,
    plan_fold,
)
from .messages import (
    find_orphans,
    format_messages,
    provider_problems,
    split_units,
    to_anthropic,
    to_openai,
    validate_messages,
)
from .tokens import (
    HeuristicCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
    estimate_tokens,
    get_counter,
)

if TYPE_CHECKING:
    from .session import AsyncConversation, Conversation, ConversationStats
    from .stores import MemoryStore, PostgresStore, RedisStore, SQLiteStore
    from .summarizers import (
        AnthropicSummarizer,
        CallableSummarizer,
        ExtractiveSummarizer,
        OpenAISummarizer,
    )

__version__ = "0.1.0"

__all__ = [
    "AnthropicSummarizer",
    "AsyncConversation",
    "AsyncSummarizer",
    "CallableSummarizer",
    "ChatfoldError",
    "ContextOverflowError",
    "Conversation",
    "ConversationFileError",
    "ConversationNotFoundError",
    "ConversationStats",
    "ExtractiveSummarizer",
    "FoldConflictError",
    "FoldPlan",
    "FoldResult",
    "FoldState",
    "Folder",
    "HFTokenizerCounter",
    "HeuristicCounter",
    "InvalidArgumentError",
    "InvalidConversationIdError",
    "InvalidMessageError",
    "InvalidPolicyError",
    "InvalidSummarizerError",
    "MemoryStore",
    "MissingDependencyError",
    "OpenAISummarizer",
    "PluginConflictError",
    "Policy",
    "PostgresStore",
    "RedisStore",
    "SQLiteStore",
    "StoreCorruptError",
    "StoreError",
    "StoreUnavailableError",
    "Summarizer",
    "SummarizerError",
    "SummaryRequest",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerError",
    "UnknownPluginError",
    "apply_fold",
    "compress",
    "estimate_tokens",
    "find_orphans",
    "format_messages",
    "get_counter",
    "get_store",
    "get_summarizer",
    "list_stores",
    "list_summarizers",
    "maybe_compress",
    "plan_fold",
    "provider_problems",
    "register_store",
    "register_summarizer",
    "split_units",
    "to_anthropic",
    "to_openai",
    "validate_messages",
]

_LAZY = {
    "AsyncConversation": "chatfold.session",
    "Conversation": "chatfold.session",
    "ConversationStats": "chatfold.session",
    "FoldState": "chatfold.stores",
    "MemoryStore": "chatfold.stores",
    "PostgresStore": "chatfold.stores",
    "RedisStore": "chatfold.stores",
    "SQLiteStore": "chatfold.stores",
    "AnthropicSummarizer": "chatfold.summarizers",
    "CallableSummarizer": "chatfold.summarizers",
    "ExtractiveSummarizer": "chatfold.summarizers",
    "OpenAISummarizer": "chatfold.summarizers",
}


def __getattr__(name: str) -> Any:
    # Conversations, stores and summarizers (and their SDKs) load on first use.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chatfold' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
