# Sourced by the bin/ scripts: make sure .venv exists with the pinned requirements and llama_bdd installed.
# Reinstalls only when requirements.txt or pyproject.toml changed since the last install.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VENV="${LLAMA_BDD_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"

ensure_venv() {
  local python="${PYTHON:-python3}"
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "llama-bdd: $python is not installed; install Python 3.10 or newer." >&2
    return 2
  fi
  if [ ! -x "$PY" ]; then
    echo "llama-bdd: creating $VENV" >&2
    "$python" -m venv "$VENV" || { echo "llama-bdd: could not create a virtual environment (is python3-venv installed?)" >&2; return 2; }
  fi
  local stamp="$VENV/.llama-bdd-installed"
  local want
  want=$(cat "$ROOT/requirements.txt" "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "llama-bdd: installing pinned requirements into $VENV" >&2
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$ROOT/requirements.txt" \
      && "$PY" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT" \
      || { echo "llama-bdd: installing the requirements failed (see pip's output above)" >&2; return 2; }
    echo "$want" > "$stamp"
  fi
}
