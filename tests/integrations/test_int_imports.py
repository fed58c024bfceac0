"""Each integration imports its own framework only, and without it says which extra to install."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "chatfold"

FRAMEWORKS = {
    "langchain": ({"langchain", "langchain_core", "langgraph"}, "langchain"),
    "openai_agents": (set(), "openai-agents"),  # the Session protocol is structural
    "pydantic_ai": ({"pydantic_ai"}, "pydantic-ai"),
    "llama_index": ({"llama_index", "pydantic"}, "llama-index"),
}


@pytest.mark.parametrize("module", sorted(FRAMEWORKS))
def test_integration_imports_only_its_framework(module: str) -> None:
    tree = ast.parse((PACKAGE / "integrations" / f"{module}.py").read_text(encoding="utf-8"))
    allowed, _ = FRAMEWORKS[module]
    found = set()
    for node in ast.walk(tree):  # module level and lazy imports alike
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    foreign = found - allowed - set(sys.stdlib_module_names) - {"chatfold", "__future__"}
    if module == "openai_agents":
        foreign -= {"agents"}  # under TYPE_CHECKING only: the SDK's item types
    assert not foreign, f"chatfold.integrations.{module} imports {sorted(foreign)}"


@pytest.mark.parametrize("module", ["langchain", "pydantic_ai", "llama_index"])
def test_missing_framework_names_the_extra(module: str) -> None:
    blocked, extra = FRAMEWORKS[module]
    code = (
        "import sys\n"
        f"for name in {sorted(blocked - {'pydantic'})!r}: sys.modules[name] = None\n"
        "from chatfold import MissingDependencyError\n"
        "try:\n"
        f"    import chatfold.integrations.{module}\n"
        "except MissingDependencyError as exc:\n"
        "    print(exc.extra)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == extra
