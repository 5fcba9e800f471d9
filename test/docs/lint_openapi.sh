#!/usr/bin/env bash
# docs/openapi.yaml is valid OpenAPI 3.1 by Redocly's CLI: Redocly's plain
# recommended rules find no error (warnings are listed, not fatal), and
# recommended-strict with the exceptions and their reasons in
# test/docs/redocly.yaml finds nothing.
set -euo pipefail
source_dir=${1:?usage: lint_openapi.sh SOURCE_DIR}
here=$source_dir/test/docs
# npm ci once, even when tests run in parallel.
( flock 9
  [[ -f $here/node_modules/@redocly/cli/package.json ]] ||
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) ) 9>"$here/.npm-ci.lock"
redocly=$here/node_modules/.bin/redocly
# The plain recommended set, no exceptions: from a directory with no
# redocly.yaml, so that nothing of ours relaxes it.
plain=$(mktemp -d)
trap 'rm -rf "$plain"' EXIT
echo "== redocly lint, recommended (errors fail, warnings are listed)"
(cd "$plain" && "$redocly" lint --extends recommended --format=summary "$source_dir/docs/openapi.yaml")
echo "== redocly lint, recommended-strict with test/docs/redocly.yaml's exceptions"
cd "$here"
"$redocly" lint --config redocly.yaml "$source_dir/docs/openapi.yaml"
