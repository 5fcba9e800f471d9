#!/usr/bin/env bash
# docs/openapi.yaml is valid OpenAPI 3.1 by Redocly's CLI (recommended-strict,
# with the exceptions and their reasons in test/docs/redocly.yaml).
set -euo pipefail
source_dir=${1:?usage: lint_openapi.sh SOURCE_DIR}
here=$source_dir/test/docs
# npm ci once, even when tests run in parallel.
( flock 9
  [[ -f $here/node_modules/@redocly/cli/package.json ]] ||
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) ) 9>"$here/.npm-ci.lock"
cd "$here"
exec npx --no-install redocly lint --config redocly.yaml "$source_dir/docs/openapi.yaml"
