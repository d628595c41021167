#!/usr/bin/env bash
# The API clients' generated layers are what docs/openapi.json generates now
# (scripts/generate-sdks --check): regenerated into a temporary directory
# with the pinned generators and compared, file by file. Fails, showing the
# difference, when the document changed without `scripts/generate-sdks`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec scripts/generate-sdks --check
