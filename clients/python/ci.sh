#!/usr/bin/env bash
# The Python client's tests, as CI runs them (npm run test:clients calls this
# with a local gate up): install the package into a throwaway venv, then run
# pytest against the installed copy. Offline: no package index, no setuptools
# and no wheel needed (the build backend is in the tree, standard library only).
set -euo pipefail
cd "$(dirname "$0")"

say() { echo "python-client: $*"; }
loud() {
  echo "################################################################################"
  for line in "$@"; do echo "python-client: $line"; done
  echo "################################################################################"
}

# An interpreter with pytest: python3 first, then Debian's (installing
# python3-pytest with apt-get when we are root and it is missing).
PY=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import pytest, venv' >/dev/null 2>&1; then PY="$candidate"; break; fi
done
if [ -z "$PY" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  say "no python3 with pytest; installing Debian's python3-pytest"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pytest python3-venv) >/dev/null 2>&1 \
    && /usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 && PY=/usr/bin/python3 || true
fi
if [ -z "$PY" ]; then
  loud "SKIPPING THE PYTHON CLIENT'S TESTS: no python3 with pytest here, and python3-pytest" \
       "could not be installed (not root, no apt-get, or no package source)."
  exit 0
fi
say "$("$PY" --version) with pytest $("$PY" -c 'import pytest; print(pytest.__version__)')"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# Built from a copy, so nothing the build might leave lands in the checkout.
PKG="$WORK/package"
mkdir -p "$PKG" && cp -r pyproject.toml README.md build_backend src "$PKG"/
PIP_FLAGS=(install --quiet --no-deps --no-index --disable-pip-version-check)

# The documented offline install, as a user runs it: a plain venv, no package
# index, and neither setuptools nor wheel (venvs of Python 3.12+ have neither;
# older ones get setuptools removed here). The in-tree backend needs none.
PLAIN="$WORK/plain"
"$PY" -m venv "$PLAIN"
"$PLAIN/bin/python" -m pip uninstall --quiet --yes setuptools wheel >/dev/null 2>&1 || true
"$PLAIN/bin/python" -m pip "${PIP_FLAGS[@]}" "$PKG"
"$PLAIN/bin/python" -m pip "${PIP_FLAGS[@]}" --force-reinstall --no-build-isolation "$PKG"
say "installed offline in a plain venv (pip install --no-index, with and without --no-build-isolation)"

# The tests, against an installed copy; --system-site-packages: the venv sees the interpreter's pytest.
VENV="$WORK/venv"
"$PY" -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip "${PIP_FLAGS[@]}" "$PKG"

for python in "$PLAIN/bin/python" "$VENV/bin/python"; do
  # From outside the source tree, so the import can only find the installed copy.
  (cd "$WORK" && "$python" - <<'PY'
import pathlib, offload_gate
here = pathlib.Path(offload_gate.__file__).parent
assert "site-packages" in str(here), here
assert (here / "py.typed").is_file(), "py.typed is missing from the installed package"
print(f"python-client: imports offload_gate {offload_gate.__version__} from {here}")
PY
  )
done
OFFLOAD_GATE_TEST_INSTALLED=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
