#!/usr/bin/env bash
# Tests the verifier SDKs beyond Rust: checks that sdks/vectors.json is what
# Relay's signing code generates now, installs what the Python and TypeScript
# suites need from the package registries (PyPI, npm), and runs both suites
# (each runs every case of sdks/vectors.json and of the Standard Webhooks
# vectors in ../shared/vectors). The Rust SDK, crates/relay-verify, runs with
# `cargo test --workspace`.
#
# Quiet on success (one line per step and a summary); prints a suite's whole
# output when it fails. Exits non-zero on any failure. Safe to run again.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT

export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

failed=0
passed_total=0
failed_total=0

# run NAME COMMAND...: runs a step with its output in a log; shows the log on failure.
run() {
    local name="$1"
    shift
    if "$@" >"$LOGS/$name.log" 2>&1; then
        return 0
    fi
    echo "test-sdks: $name FAILED; its output:" >&2
    sed 's/^/    /' "$LOGS/$name.log" >&2
    failed=1
    return 1
}

for tool in python3 node npm cargo; do
    command -v "$tool" >/dev/null || { echo "test-sdks: $tool is not installed" >&2; exit 1; }
done
if [ ! -f "$ROOT/../shared/vectors/standard-webhooks.json" ]; then
    echo "test-sdks: ../shared/vectors/standard-webhooks.json not found (shared/ must sit beside the repository)" >&2
    exit 1
fi

# 1. The committed vectors are what Relay's signing code produces now.
if run vectors cargo run -q --locked -p relay-core --example gen_vectors -- --check; then
    echo "test-sdks: sdks/vectors.json is up to date"
fi

# 2. Python: the package with its test extras (cryptography, pytest, Flask, FastAPI).
if run pip-install python3 -m pip install -q -e "sdks/python[test]"; then
    if run python python3 -m pytest -p no:cacheprovider sdks/python; then
        :
    fi
    py_summary="$(grep -E '^[0-9]+ (passed|failed)' "$LOGS/python.log" | tail -n1 || true)"
    py_passed="$(sed -nE 's/.*\b([0-9]+) passed.*/\1/p' <<<"$py_summary")"
    py_failed="$(sed -nE 's/.*\b([0-9]+) failed.*/\1/p' <<<"$py_summary")"
    echo "test-sdks: python: ${py_summary:-no summary}"
    passed_total=$((passed_total + ${py_passed:-0}))
    failed_total=$((failed_total + ${py_failed:-0}))
    if [ -z "$py_passed" ] || [ "$py_passed" = 0 ]; then failed=1; fi
fi

# 3. TypeScript: the locked dev dependencies (typescript, @types/node, express), tsc, node --test.
if run npm-ci npm --prefix sdks/typescript ci --loglevel=error; then
    if run typescript npm --prefix sdks/typescript test --silent; then
        :
    fi
    ts_passed="$(sed -nE 's/^# pass ([0-9]+)$/\1/p' "$LOGS/typescript.log" | tail -n1)"
    ts_failed="$(sed -nE 's/^# fail ([0-9]+)$/\1/p' "$LOGS/typescript.log" | tail -n1)"
    echo "test-sdks: typescript: ${ts_passed:-0} passed, ${ts_failed:-0} failed"
    passed_total=$((passed_total + ${ts_passed:-0}))
    failed_total=$((failed_total + ${ts_failed:-0}))
    if [ -z "$ts_passed" ] || [ "$ts_passed" = 0 ]; then failed=1; fi
fi

if [ "$failed" != 0 ] && [ "$failed_total" = 0 ]; then
    failed_total=1 # a step failed outside the suites' own counts
fi
echo "sdks: $passed_total passed, $failed_total failed"
exit "$failed"
