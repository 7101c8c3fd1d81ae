#!/usr/bin/env bash
# The Python client's tests, as CI runs them (npm run test:clients calls this
# with a local gate up): install the package into a throwaway venv, then run
# pytest against the installed copy. Offline-safe: no package index needed
# when the interpreter has setuptools and wheel (--no-build-isolation).
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
VENV="$WORK/venv"
# Built from a copy, so the build leaves nothing (build/, *.egg-info) in the checkout.
PKG="$WORK/package"
mkdir -p "$PKG" && cp -r pyproject.toml README.md src "$PKG"/
# --system-site-packages: the venv sees the interpreter's pytest (and setuptools).
"$PY" -m venv --system-site-packages "$VENV"
PIP=("$VENV/bin/python" -m pip install --quiet --no-deps --disable-pip-version-check)
WHEELS="$WORK/wheels"
builds_offline() { "$1" -c 'import setuptools, wheel, pip' >/dev/null 2>&1; }
if builds_offline "$VENV/bin/python" && "${PIP[@]}" --no-build-isolation --no-index "$PKG" ; then
  say "installed with pip install --no-build-isolation (offline)"
elif [ -x /usr/bin/python3 ] && builds_offline /usr/bin/python3 \
  && /usr/bin/python3 -m pip wheel --quiet --no-deps --no-build-isolation --no-index -w "$WHEELS" "$PKG" \
  && "${PIP[@]}" --no-index "$WHEELS"/offload_gate-*.whl ; then
  say "installed the wheel Debian's python3 built offline (pip wheel --no-build-isolation)"
elif "${PIP[@]}" "$PKG" ; then
  say "installed with pip install (the build backend came from the package index)"
else
  loud "COULD NOT INSTALL the package here (no setuptools+wheel, no package index):" \
       "testing it from its source folder instead; the install itself is NOT checked in this run."
  VENV=""
fi

if [ -n "$VENV" ]; then
  # From outside the source tree, so the import can only find the installed copy.
  (cd "$WORK" && OFFLOAD_GATE_TEST_INSTALLED=1 "$VENV/bin/python" - <<'PY'
import pathlib, offload_gate
here = pathlib.Path(offload_gate.__file__).parent
assert "site-packages" in str(here), here
assert (here / "py.typed").is_file(), "py.typed is missing from the installed package"
print(f"python-client: imports offload_gate {offload_gate.__version__} from {here}")
PY
  )
  OFFLOAD_GATE_TEST_INSTALLED=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
else
  "$PY" -m pytest -q -p no:cacheprovider tests
fi
