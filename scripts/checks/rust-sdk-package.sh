#!/usr/bin/env bash
# The Rust SDK's crates build as published: `cargo package` makes the
# .crate files of relay-verify and relay-sdk together (cargo packages
# workspace crates that depend on each other in one run) and verifies them:
# each is unpacked and built on its own, from its files and crates.io
# dependencies alone, so a file the crate needs but does not ship, or a
# path-only dependency, fails here. Needs the registry (or cargo's cache of
# it), as every cargo build here does.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
if ! cargo package --locked --allow-dirty -p relay-verify -p relay-sdk >"$out" 2>&1; then
    cat "$out"
    echo "rust sdk package: 0 passed, 1 failed"
    exit 1
fi
target="${CARGO_TARGET_DIR:-target}/package"
version="$(sed -nE 's/^version = "(.*)"/\1/p' Cargo.toml | head -n1)"
fail() { cat "$out"; echo "rust sdk package: $1"; echo "rust sdk package: 0 passed, 1 failed"; exit 1; }
for crate in relay-verify relay-sdk; do
    file="$target/$crate-$version.crate"
    [ -s "$file" ] || fail "$file is missing"
    listing="$(tar -tzf "$file")"
    wants="Cargo.toml README.md LICENSE src/lib.rs"
    [ "$crate" = relay-sdk ] && wants="$wants src/generated/types.rs examples/quickstart.rs"
    for want in $wants; do
        grep -qxF "$crate-$version/$want" <<<"$listing" || fail "$file lacks $want"
    done
done
echo "rust sdk package: 1 passed, 0 failed"
