#!/usr/bin/env bash
# Build the isolated environment for the peers benchmark (issue 6): a venv holding LangMem,
# LlamaIndex core and Semantic Kernel at the versions pinned in
# benchmarks/requirements-peers.txt, plus chatfold itself (editable, with its 'tiktoken'
# extra so the o200k_base counter loads offline), so benchmarks/peers/*.py and
# benchmarks/bench_peers.py can import both. Nothing here touches chatfold's own environment.
#
#   bash benchmarks/peers/setup.sh            # -> benchmarks/.venv-peers
#   CHATFOLD_PEERS_VENV=/tmp/v bash benchmarks/peers/setup.sh
#
# Needs PyPI only (about 150 packages, ~750 MB, no torch; a few minutes on 2 cores).
# Ends by checking that every peer imports; exits non-zero if one does not.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${CHATFOLD_PEERS_VENV:-$root/benchmarks/.venv-peers}"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"

"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "setup.sh: Python 3.11+ needed, $python is older" >&2; exit 1; }

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r "$root/benchmarks/requirements-peers.txt"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root[tiktoken]"
"$venv/bin/python" "$here/probe.py" --check
echo "peers environment ready: $venv"
