"""Thin adapters that put chatfold where agent frameworks keep their history.

Each adapter lives in its own module and needs its framework, installed with an extra:

- ``chatfold.integrations.langchain`` (extra ``langchain``): ``ChatfoldMiddleware``, a
  ``before_model`` middleware for LangChain v1 agents, and its LangGraph ``pre_model_hook``.
- ``chatfold.integrations.openai_agents`` (extra ``openai-agents``): ``ChatfoldSession``, the
  OpenAI Agents SDK's ``Session`` protocol over a conversation.
- ``chatfold.integrations.pydantic_ai`` (extra ``pydantic-ai``): ``ChatfoldHistoryProcessor``
  for ``Agent(history_processors=[...])``.
- ``chatfold.integrations.llama_index`` (extra ``llama-index``): ``ChatfoldMemory``, a
  ``BaseMemory`` usable where LlamaIndex's ``Memory`` is.

They use chatfold's public API only (``Folder``, ``Policy``, ``Conversation``). Importing this
package loads no framework; importing an adapter whose framework is missing raises
:class:`~chatfold.MissingDependencyError` naming the extra.
"""

from __future__ import annotations

__all__: list[str] = []
