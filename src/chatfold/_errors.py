"""The one error tree of chatfold.

Every error chatfold raises derives from :class:`ChatfoldError` and from the builtin that
matches it, so ``except ValueError`` keeps working for callers that do not know chatfold::

    ChatfoldError(Exception)
    ├── InvalidMessageError(ChatfoldError, ValueError)       a message has the wrong shape
    ├── ConversationFileError(ChatfoldError, ValueError)     a conversation file is unreadable
    ├── InvalidPolicyError(ChatfoldError, ValueError)        a Policy option is out of range
    ├── InvalidArgumentError(ChatfoldError, ValueError)      another argument is out of range
    ├── ContextOverflowError(ChatfoldError, ValueError)      pinned + latest unit exceed the target
    ├── SummarizerError(ChatfoldError, RuntimeError)         the summarizer failed; nothing changed
    ├── InvalidSummarizerError(ChatfoldError, TypeError)     not an object chatfold can call
    ├── MissingDependencyError(ChatfoldError, ImportError)   an optional extra is not installed
    ├── TokenizerError(ChatfoldError, RuntimeError)          an exact tokenizer cannot be loaded
    ├── UnknownPluginError(ChatfoldError, LookupError)       no summarizer/store by that name
    ├── PluginConflictError(ChatfoldError, ValueError)       the name is already registered
    └── StoreError(ChatfoldError, RuntimeError)              a store failed
        ├── StoreUnavailableError(StoreError)                server unreachable, file unreadable
        ├── StoreCorruptError(StoreError)                    not a chatfold store, or damaged
        ├── ConversationNotFoundError(StoreError, LookupError)
        ├── InvalidConversationIdError(StoreError, ValueError)
        └── FoldConflictError(StoreError)                    another fold won the compare-and-set

Errors carry their facts as attributes; the message is one sentence saying what went wrong and
how to fix it.
"""

from __future__ import annotations

__all__ = [
    "ChatfoldError",
    "ContextOverflowError",
    "ConversationFileError",
    "ConversationNotFoundError",
    "FoldConflictError",
    "InvalidArgumentError",
    "InvalidConversationIdError",
    "InvalidMessageError",
    "InvalidPolicyError",
    "InvalidSummarizerError",
    "MissingDependencyError",
    "PluginConflictError",
    "StoreCorruptError",
    "StoreError",
    "StoreUnavailableError",
    "SummarizerError",
    "TokenizerError",
    "UnknownPluginError",
]


class ChatfoldError(Exception):
    """Base class of every error chatfold raises."""


class InvalidMessageError(ChatfoldError, ValueError):
    """A message does not have a shape chatfold (or a provider) accepts.

    Attributes:
        index: Position of the offending message in the list given, or ``None`` for a single
            message.
        problem: What is wrong with it, in a few words.
    """

    def __init__(self, index: int | None, problem: str) -> None:
        self.index = index
        self.problem = problem
        where = "message" if index is None else f"message {index}"
        super().__init__(f"{where}: {problem}")


class ConversationFileError(ChatfoldError, ValueError):
    """A conversation file cannot be read: not found, not JSON, or a message is malformed.

    Attributes:
        source: The file name (``<stdin>`` for standard input).
        line: The 1-based line of the problem, when known.
        index: The index of the offending message, when known.
        problem: What is wrong, in a few words.
    """

    def __init__(self, source: str, problem: str, *, line: int | None = None,
                 index: int | None = None) -> None:
        self.source = source
        self.line = line
        self.index = index
        self.problem = problem
        where = source
        if line is not None:
            where += f" line {line}"
        if index is not None:
            where += f" (message {index})" if line is not None else f": message {index}"
        super().__init__(f"{where}: {problem}")


class InvalidPolicyError(ChatfoldError, ValueError):
    """A :class:`~chatfold.Policy` option is out of range or inconsistent.

    Attributes:
        option: Name of the offending option.
    """

    def __init__(self, option: str, problem: str) -> None:
        self.option = option
        self.problem = problem
        super().__init__(f"Policy.{option}: {problem}")


class InvalidArgumentError(ChatfoldError, ValueError):
    """An argument other than a message or a Policy option is out of range or of the wrong
    type (a store method's ``after`` / ``limit`` / ``expected_version``, a lease owner, a
    conversation's ``fold_mode``, a store's path or pool size).

    Attributes:
        argument: Name of the offending argument.
        problem: What is wrong with it, in a few words.
    """

    def __init__(self, argument: str, problem: str) -> None:
        self.argument = argument
        self.problem = problem
        super().__init__(f"{argument}: {problem}")


class ContextOverflowError(ChatfoldError, ValueError):
    """The pinned messages plus the latest unit alone exceed the target.

    No fold can bring such a context within budget: raise the target, shorten the pinned
    messages or the latest message, or use ``Policy(on_overflow="keep")``.

    Attributes:
        tokens: Tokens of the pinned messages plus the latest unit.
        target: The policy's target.
        pinned_tokens: Tokens of the pinned messages alone.
        latest_unit_tokens: Tokens of the latest unit alone.
    """

    def __init__(self, *, tokens: int, target: int, pinned_tokens: int, latest_unit_tokens: int):
        self.tokens = tokens
        self.target = target
        self.pinned_tokens = pinned_tokens
        self.latest_unit_tokens = latest_unit_tokens
        super().__init__(
            f"pinned messages ({pinned_tokens} tokens) plus the latest message unit "
            f"({latest_unit_tokens} tokens) need {tokens} tokens, over the target of {target}: "
            "raise target_tokens, shorten them, or set Policy(on_overflow='keep')"
        )


class SummarizerError(ChatfoldError, RuntimeError):
    """The summarizer failed, timed out or returned nothing usable. The input is unchanged.

    Attributes:
        retryable: True when trying again later may succeed (timeouts, 429, 5xx).
        status_code: The HTTP status of a remote summarizer, when there was one.
    """

    def __init__(self, message: str, *, retryable: bool = False, status_code: int | None = None):
        self.retryable = retryable
        self.status_code = status_code
        super().__init__(message)


class InvalidSummarizerError(ChatfoldError, TypeError):
    """The object given as a summarizer has no ``summarize``/``asummarize`` and is not callable.

    Attributes:
        type_name: The type of what was given.
    """

    def __init__(self, obj: object) -> None:
        self.type_name = type(obj).__name__
        super().__init__(
            f"a {self.type_name} is not a summarizer: give an object with summarize(request_or_"
            "text) -> str or async asummarize(request) -> str, or a callable(text) -> str"
        )


class MissingDependencyError(ChatfoldError, ImportError):
    """An optional extra is needed for this feature.

    Attributes:
        extra: The extra to install, e.g. ``"openai"`` for ``pip install 'chatfold[openai]'``.
    """

    def __init__(self, feature: str, extra: str) -> None:
        self.extra = extra
        super().__init__(f"{feature} needs the '{extra}' extra: pip install 'chatfold[{extra}]'")


class TokenizerError(ChatfoldError, RuntimeError):
    """An exact tokenizer (tiktoken encoding, tokenizer.json) could not be loaded."""


class UnknownPluginError(ChatfoldError, LookupError):
    """No summarizer or store is registered under that name.

    Attributes:
        name: The name asked for.
        known: The names that are registered.
    """

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"no {kind} named {name!r}; known: {', '.join(sorted(known)) or 'none'}")


class PluginConflictError(ChatfoldError, ValueError):
    """A summarizer or store is already registered under that name.

    Attributes:
        name: The name that is taken.
    """

    def __init__(self, kind: str, name: str) -> None:
        self.name = name
        super().__init__(f"a {kind} named {name!r} is registered already; pass replace=True "
                         "to replace it")


class StoreError(ChatfoldError, RuntimeError):
    """A conversation store failed."""


class StoreUnavailableError(StoreError):
    """The store's server cannot be reached, or its file cannot be opened."""


class StoreCorruptError(StoreError):
    """The store's file or keys are not a chatfold store, or are damaged."""


class ConversationNotFoundError(StoreError, LookupError):
    """No conversation with that id exists in this store and namespace.

    Attributes:
        conversation_id: The id asked for.
    """

    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(f"no conversation {conversation_id!r} in this store")


class InvalidConversationIdError(StoreError, ValueError):
    """A conversation id or namespace is empty, too long or has forbidden characters."""


class FoldConflictError(StoreError):
    """Another fold advanced the conversation's fold state first (compare-and-set lost).

    Attributes:
        expected_version: The version this fold started from.
        actual_version: The version found in the store.
    """

    def __init__(self, expected_version: int, actual_version: int) -> None:
        self.expected_version = expected_version
        self.actual_version = actual_version
        super().__init__(
            f"fold state moved from version {expected_version} to {actual_version} during the "
            "fold; another fold won and this one was discarded"
        )
