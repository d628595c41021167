#!/usr/bin/env bash
# Installs what the tests need beyond Rust: the Python packages of the outside
# judges (shared/judges, beside the repository), used by
# crates/relay-receiver/tests/judges.rs. Safe to run again: pip skips what is
# already installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUIREMENTS="$ROOT/../shared/judges/requirements-judges.txt"

if [ ! -f "$REQUIREMENTS" ]; then
    echo "install-test-deps: $REQUIREMENTS not found (shared/ must sit beside the repository)" >&2
    exit 1
fi

# The same interpreter the tests run (`python3`).
PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check -r "$REQUIREMENTS"
