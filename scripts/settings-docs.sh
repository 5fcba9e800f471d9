#!/usr/bin/env bash
# The settings reference is generated from the settings tables (the one source;
# lib/settings/include/authd/settings.hpp) by `authd --print-config=FORMAT`:
#   conf/authd.conf          whole (every setting commented out with its default)
#   docs/configuration.md    between <!-- BEGIN/END GENERATED SETTINGS --> markers
#   man/authd.conf.5         the SETTINGS section, between .\" BEGIN/END GENERATED SETTINGS
# The hand-written text around the markers is kept.
#
#   scripts/settings-docs.sh [AUTHD]           write the three files (`make settings-docs`)
#   scripts/settings-docs.sh --check [AUTHD]   fail when they differ from the tables, when the
#                                              conf's defaults are not the program's, or when
#                                              the man page has groff warnings (CTest docs.settings)
# AUTHD: the built program (default build/authd).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
check=false
if [[ ${1:-} == --check ]]; then
  check=true
  shift
fi
authd=${1:-$root/build/authd}
[[ -x $authd ]] || { echo "settings-docs: no program $authd (build first: make build)" >&2; exit 2; }
authd=$(realpath "$authd")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The hand-written file with the part between its markers replaced by $2.
splice() {
  local file=$1 generated=$2
  grep -q 'BEGIN GENERATED SETTINGS' "$file" && grep -q 'END GENERATED SETTINGS' "$file" ||
    { echo "settings-docs: $file lacks the BEGIN/END GENERATED SETTINGS markers" >&2; exit 1; }
  awk -v generated="$generated" '
    /END GENERATED SETTINGS/ { skipping = 0 }
    !skipping { print }
    /BEGIN GENERATED SETTINGS/ { while ((getline line < generated) > 0) print line; skipping = 1 }
  ' "$file"
}

print_reference() { env -i PATH=/usr/bin:/bin "$authd" --print-config="$1"; }
print_reference conf >"$work/conf"
print_reference markdown >"$work/markdown"
print_reference man >"$work/man"
cp "$work/conf" "$work/authd.conf"
splice "$root/docs/configuration.md" "$work/markdown" >"$work/configuration.md"
splice "$root/man/authd.conf.5" "$work/man" >"$work/authd.conf.5"

targets=(conf/authd.conf:authd.conf docs/configuration.md:configuration.md man/authd.conf.5:authd.conf.5)
if ! $check; then
  for target in "${targets[@]}"; do
    cmp -s "$work/${target#*:}" "$root/${target%%:*}" || { cp "$work/${target#*:}" "$root/${target%%:*}"; echo "wrote ${target%%:*}"; }
  done
  exit 0
fi

status=0
for target in "${targets[@]}"; do
  if ! diff -u "$root/${target%%:*}" "$work/${target#*:}" >"$work/diff"; then
    cat "$work/diff"
    echo "FAIL: ${target%%:*} differs from the settings tables." \
         "Regenerate it with \`make settings-docs\` (scripts/settings-docs.sh) and commit it." >&2
    status=1
  fi
done

# Every `#name = value` line of the conf's fixed settings (those --print-config
# lists; not the per-provider oauth_* ones, which make a provider), uncommented,
# is what the program uses when the setting is absent, and passes `authd --check`.
: >"$work/empty.conf"
settings_with() { (cd "$work" && env -i PATH=/usr/bin:/bin AUTHD_CONFIG="$1" "$authd" "${@:2}"); }
settings_with "$work/empty.conf" --print-config >"$work/defaults" ||
  { echo "FAIL: authd --print-config refused an empty configuration" >&2; exit 1; }
awk 'NR == FNR { fixed[$1] = 1; next }
     /^#[a-z0-9_]+ = ./ { name = substr($1, 2); if (name in fixed) { print substr($0, 2); next } }
     { print }' "$work/defaults" "$root/conf/authd.conf" >"$work/uncommented.conf"
if ! settings_with "$work/uncommented.conf" --print-config >"$work/uncommented" ||
   ! diff -u "$work/defaults" "$work/uncommented"; then
  echo "FAIL: conf/authd.conf with every setting uncommented is not the built-in defaults" >&2
  status=1
fi
if ! settings_with "$work/uncommented.conf" --check 2>"$work/check.err"; then
  cat "$work/check.err" >&2
  echo "FAIL: authd --check refuses conf/authd.conf with every setting uncommented" >&2
  status=1
fi

# authd.conf(5) renders without a warning.
if ! groff -man -ww -z "$root/man/authd.conf.5" 2>"$work/groff" || [[ -s $work/groff ]]; then
  cat "$work/groff" >&2
  echo "FAIL: groff -man -ww warns about man/authd.conf.5" >&2
  status=1
fi
exit $status
