#!/usr/bin/env bash
# Checks that the API description is valid and true (issue 21, part 7):
#  1. docs/openapi.json and the document a running Relay serves are valid
#     OpenAPI (openapi-spec-validator);
#  2. a short schemathesis run drives every operation of the served document
#     against a running `relay serve` (a temporary SQLite directory, an
#     operator token, a minted tenant API key) and fails on a server error, a
#     status code, content type or header the document does not declare, or
#     a body that does not match its schema: the operator's operations with
#     the operator token, the tenant's with an API key, the portal's with a
#     portal token.
# Bounded: a few examples per operation, a fixed seed; it takes seconds.
# The document's own examples are among what it sends (the examples phase).
# That every operation, schema and field is described, that operationIds
# are stable, and that every example validates against its schema is
# crates/relay-api/tests/openapi_lint.rs (cargo test), which reads the
# generated document directly.
#
# Run by scripts/test (scripts/checks/README.md), in its environment:
#   RELAY_TEST_PYTHON  the test environment's python, with openapi-spec-validator
#                      and schemathesis (scripts/test-requirements.txt)
#   CARGO_TARGET_DIR   where `cargo build -p relay` puts the binary
# By hand: `scripts/test --setup-only` prints RELAY_TEST_PYTHON to export.
#   OPENAPI_RELAY_BIN  the relay binary (default: built with cargo)
#   OPENAPI_EXAMPLES   examples per operation (default 5)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
EXAMPLES="${OPENAPI_EXAMPLES:-5}"
started=$(date +%s)

say() { echo "check-openapi: $*"; }

# The Python tools, from the test environment (never the system's).
if [ -z "${RELAY_TEST_PYTHON:-}" ]; then
    echo "check-openapi: RELAY_TEST_PYTHON is not set; run scripts/test, or export what scripts/test --setup-only prints" >&2
    exit 1
fi
OPENAPI_PYTHON="$RELAY_TEST_PYTHON"
bin_dir="$(dirname "$OPENAPI_PYTHON")"
for tool in openapi-spec-validator schemathesis; do
    [ -x "$bin_dir/$tool" ] || { echo "check-openapi: $bin_dir/$tool is missing (scripts/test-requirements.txt)" >&2; exit 1; }
done

# The binary.
if [ -z "${OPENAPI_RELAY_BIN:-}" ]; then
    cargo build -q -p relay --locked
    OPENAPI_RELAY_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/relay"
fi
[ -x "$OPENAPI_RELAY_BIN" ] || { echo "check-openapi: $OPENAPI_RELAY_BIN is not executable" >&2; exit 1; }

status=0
passed=0
failed=0
# tally 0|1: counts a check as passed (0) or failed.
tally() { if [ "$1" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi; }
say "validating docs/openapi.json"
"$bin_dir/openapi-spec-validator" docs/openapi.json && tally 0 || tally 1

work="$(mktemp -d)"
relay_pid=""
cleanup() {
    if [ -n "$relay_pid" ]; then
        kill "$relay_pid" 2>/dev/null || true
        wait "$relay_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Relay on a free loopback port. Outbound: every address blocked but one
# loopback address and a port nothing listens on, so whatever endpoints the
# run registers, no delivery leaves this machine.
operator="rop_check_openapi_$(date +%s%N)"
mkfifo "$work/stdout"
RELAY_OPERATOR_TOKEN="$operator" \
RELAY_OUTBOUND__BLOCK_CIDRS="0.0.0.0/0,::/0" \
RELAY_OUTBOUND__ALLOW_CIDRS="127.0.0.1/32" \
RELAY_OUTBOUND__ALLOW_PORTS="9" \
RELAY_LOG="${RELAY_LOG:-warn}" \
    "$OPENAPI_RELAY_BIN" serve --listen 127.0.0.1:0 --data-dir "$work/data" \
    >"$work/stdout" 2>"$work/relay.log" &
relay_pid=$!
url=""
exec 3<"$work/stdout"
while IFS= read -r -t 60 line <&3; do
    case "$line" in
        "Relay listening on "*) url="${line#Relay listening on }"; url="${url%% *}"; break ;;
    esac
done
# Keep draining stdout so Relay never blocks on a full pipe.
cat <&3 >/dev/null &
exec 3<&-
if [ -z "$url" ]; then
    echo "check-openapi: relay serve did not start; its log:" >&2
    cat "$work/relay.log" >&2
    exit 1
fi
say "Relay at $url"

curl -fsS "$url/openapi.json" -o "$work/served.json"
say "validating the served document"
"$bin_dir/openapi-spec-validator" "$work/served.json" && tally 0 || tally 1

# A tenant, its API key and one object of each kind; the schemathesis
# configuration binds path ids to them half of the time.
seeded=$("$OPENAPI_PYTHON" scripts/checks/openapi_seed.py "$url" "$operator" "$work/schemathesis.toml")
read -r key portal <<<"$seeded"

checks="not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance"
run_schemathesis() {
    local token="$1"
    shift
    # From the scratch directory: schemathesis reads the configuration
    # there, and keeps its cache there (`.schemathesis/`).
    (cd "$work" && "$bin_dir/schemathesis" run "$work/served.json" --url "$url" \
        -H "Authorization: Bearer $token" \
        --checks "$checks" \
        --phases examples,coverage,fuzzing \
        --max-examples "$EXAMPLES" --seed 21 --no-shrink \
        --generation-database none --workers 1 \
        --request-timeout 10 --no-color --warnings off \
        "$@")
}
say "schemathesis: the operator's operations (tenants), with the operator token"
run_schemathesis "$operator" --include-tag tenants && tally 0 || tally 1
say "schemathesis: the tenant's operations, with a tenant API key"
run_schemathesis "$key" --exclude-tag-regex '^(tenants|portal)$' && tally 0 || tally 1
say "schemathesis: the portal's operations, with a portal token"
run_schemathesis "$portal" --include-tag portal && tally 0 || tally 1

if [ "$status" -ne 0 ]; then
    echo "check-openapi: FAILED; Relay's log:" >&2
    tail -n 50 "$work/relay.log" >&2
else
    say "passed in $(($(date +%s) - started)) s"
fi
echo "openapi: $passed passed, $failed failed"
exit "$status"
