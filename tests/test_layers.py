"""DESIGN.md's layer rules: imports point down, the core is standard library only, and
`import chatfold` loads no SDK."""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "chatfold"

LAYERS = {
    "_errors": 1, "_threads": 1, "_lang": 1, "messages": 1, "_export": 1, "tokens": 1, "_media": 1,
    "_heuristic": 1, "_tiktoken": 1, "_closing": 1,
    "_registry": 1,
    "fold": 2, "plan": 2, "policy": 2, "cost": 2, "_summary": 2, "_adapter": 2, "compat": 2,
    "recall": 2, "_terms": 2,
    "summarizers": 3,
    "session": 4, "_conversation": 4, "stores": 4,
    "_demo": 5, "cli": 5, "__init__": 5,
    "integrations": 5,
}
STDLIB = set(sys.stdlib_module_names)


def _layer(module: str) -> int:
    head = module.split(".")[0]
    return LAYERS[head]


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        name = ".".join(rel.parts)
        if name.endswith(".__init__") and name != "__init__":
            name = name[: -len(".__init__")]
        out.append((name, path))
    return out


def _top_level_imports(path: Path, module: str) -> list[str]:
    """Modules imported at module level (not inside functions: those are lazy by design)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    package = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
    for n in tree.body:  # `if TYPE_CHECKING:` blocks are for the type checker: not walked
        if isinstance(n, ast.Import):
            found += [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                base = package[: len(package) - n.level + 1]
                target = ".".join([*base, n.module] if n.module else base)
                found.append("chatfold." + target if target else "chatfold")
            elif n.module:
                found.append(n.module)
    return found


@pytest.mark.parametrize(("module", "path"), _modules(), ids=lambda v: str(v))
def test_imports_point_down(module: str, path: Path) -> None:
    if module == "__init__":
        return
    mine = _layer(module)
    for target in _top_level_imports(path, module):
        if target.startswith("chatfold."):
            inner = target[len("chatfold."):]
            assert _layer(inner) <= mine, f"{module} (layer {mine}) imports {target}"
        elif target == "chatfold":
            assert mine == 5, f"{module} imports the package root"
        elif mine <= 2:
            assert target.split(".")[0] in STDLIB or target == "__future__", \
                f"{module} is in the core (layer {mine}) but imports {target}"


def test_importing_chatfold_loads_no_sdk() -> None:
    code = (
        "import sys, chatfold, chatfold.session, chatfold.stores, chatfold.summarizers,"
        " chatfold.integrations;"
        "heavy = {'openai', 'anthropic', 'tiktoken', 'tokenizers', 'psycopg', 'redis',"
        " 'click', 'rich', 'matplotlib', 'langchain', 'langchain_core', 'langgraph',"
        " 'agents', 'pydantic_ai', 'llama_index'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(PACKAGE.parent),
                                          "PATH": sysconfig.get_path("scripts")})
    assert out.stdout.strip() == "[]"
