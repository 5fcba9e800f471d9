#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# What the shared-hosting tarball holds and what its programs still need from
# the host: the files install.sh and the README promise; none of the
# libraries a host lacks (libargon2, LMDB, jansson; nor libfcgi, which authd
# no longer uses) nor libstdc++ among the programs' NEEDED entries; every library ldd lists
# resolves; the release notes' "Oldest C library: glibc X.Y" equals the
# highest GLIBC_ version the programs need (here with objdump, independently
# of check-release.sh, which dist.sh ran with readelf and is run again here);
# the README names what is needed; the programs run, and a program without
# its config refuses to start rather than make a state directory somewhere.
#
#   bash test/hosting/t_dist_contents.sh    (DIST_DIR: the tarball's directory)
_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../blackbox/assert.sh
source "$_DIR/../blackbox/assert.sh"
SOURCE_DIR=${SOURCE_DIR:-$(cd "$_DIR/../.." && pwd)}
DIST_DIR=${DIST_DIR:-$SOURCE_DIR/build-dist}
TARBALL=$(ls -t "$DIST_DIR"/authd-*-linux-*.tar.gz 2>/dev/null | head -n 1)
[[ -f $TARBALL ]] || { echo "no release tarball in $DIST_DIR (make dist)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/authd-dist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
tar xzf "$TARBALL" -C "$WORK"
name=$(basename "$TARBALL" .tar.gz)
R=$WORK/$name
version=$(sed -E 's/^authd-([0-9.]+)-linux-.*/\1/' <<<"$name")
echo "tarball: $TARBALL ($(stat -c %s "$TARBALL") bytes)"

step "contents"
expect_match "name: authd-<version>-linux-<arch>" "^authd-[0-9]+\.[0-9]+\.[0-9]+-linux-$(uname -m)\$" "$name"
expect_eq "one top folder" "$name" "$(tar tzf "$TARBALL" | cut -d/ -f1 | sort -u)"
for f in install.sh bin/authd bin/authctl; do
  expect_eq "$f is executable" yes "$([[ -f $R/$f && -x $R/$f ]] && echo yes || echo no)"
done
for f in README.md RELEASE-NOTES.md VERSION conf/authd.conf conf/htaccess www/index.html www/404.html www/500.html; do
  expect_eq "$f is there" yes "$([[ -f $R/$f ]] && echo yes || echo no)"
done
expect_eq "VERSION" "$version" "$(cat "$R/VERSION")"
expect_match "README is the Shared hosting section" 'Install, step by step' "$(cat "$R/README.md")"
expect_match "README says what to do with CGI only" 'only CGI' "$(cat "$R/README.md")"
# Every site of a shared host reaches Apache from loopback (issue 41, class 12).
expect_eq "the release's config trusts no proxy" 1 "$(grep -cx 'trusted_proxies =' "$R/conf/authd.conf")"
expect_eq "the release's config serves /metrics to nobody" 1 "$(grep -cx 'metrics_allow =' "$R/conf/authd.conf")"
expect_eq "no build paths in the default config" no "$(grep -q "$SOURCE_DIR" "$R/conf/authd.conf" && echo yes || echo no)"

# The programs as install.sh lays them out in the state directory
# (STATE/authd.fcgi, STATE/authctl, STATE/lib/): their one search path is
# RUNPATH $ORIGIN/lib.
I=$WORK/installed
mkdir -m 0700 "$I"
cp "$R/bin/authd" "$I/authd.fcgi"
cp "$R/bin/authctl" "$I/authctl"
[[ -d $R/lib ]] && cp -R "$R/lib" "$I/lib"
declare -A INSTALLED=([authd]=$I/authd.fcgi [authctl]=$I/authctl)

step "what the programs need from the host"
for b in authd authctl; do
  expect_eq "$b: the one search path is RUNPATH \$ORIGIN/lib" '$ORIGIN/lib' \
    "$(readelf -d "$R/bin/$b" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')"
  needed=$(readelf -d "$R/bin/$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  echo "     $b needs: $needed"
  expect_eq "$b: none of libfcgi, libargon2, LMDB, jansson, cgicc, libstdc++ from the host" "" \
    "$(grep -oE 'lib(fcgi|argon2|lmdb|jansson|cgicc|stdc\+\+)[^ ]*' <<<"$needed")"
  ldd_out=$(ldd "${INSTALLED[$b]}" 2>&1)
  expect_eq "$b: ldd finds every library" "" "$(grep -i 'not found' <<<"$ldd_out")"
  echo "$ldd_out" | sed 's/^/     | /'
done

step "the libraries the release carries"
for lib in $(sed -n 's/^- Bundled in lib\/: //p' "$R/RELEASE-NOTES.md"); do
  expect_eq "lib/$lib is there" yes "$([[ -f $R/lib/$lib ]] && echo yes || echo no)"
  for b in authd authctl; do
    readelf -d "$R/bin/$b" | grep -qF "[$lib]" || continue  # not needed by this one
    # RUNPATH comes before the system's directories: the release's copy is the one loaded.
    expect_eq "$b, installed, loads lib/$lib from beside it" "$(realpath "$I/lib/$lib")" \
      "$(realpath -m "$(ldd "${INSTALLED[$b]}" | awk -v lib="$lib" '$1 == lib { print $3 }')")"
  done
done

step "the glibc claim"
claimed=$(sed -n 's/^- Oldest C library: glibc \([0-9][0-9.]*\)$/\1/p' "$R/RELEASE-NOTES.md")
highest=$(for b in authd authctl; do objdump -T "$R/bin/$b" | grep -oE '\(GLIBC_[0-9.]+\)' | tr -d '()' | sed 's/GLIBC_//'; done |
          sort -uV | tail -n 1)
echo "     release notes: glibc $claimed; the programs' highest GLIBC_ version: $highest"
expect_match "the release notes name a glibc version" '^[0-9]+\.[0-9]+$' "$claimed"
expect_eq "the claim is the highest GLIBC_ version the programs use" "$highest" "$claimed"
expect_match "the project README names the same glibc" "glibc $claimed" "$(cat "$SOURCE_DIR/README.md")"
"$SOURCE_DIR/packaging/hosting/check-release.sh" "$R"
expect_eq "check-release.sh: libraries and glibc as claimed, README names them" 0 "$?"

step "the programs run"
mkdir -m 0700 "$WORK/state"
sed "s|^#\?state_dir = .*|state_dir = $WORK/state|" "$R/conf/authd.conf" >"$WORK/authd.conf"
out=$(env -i PATH=/usr/bin:/bin AUTHD_CONFIG="$WORK/authd.conf" "$I/authd.fcgi" --check 2>&1)
expect_eq "authd --check with a config" 0 "$?"
out=$(printf 'pw' | env -i PATH=/usr/bin:/bin AUTHD_CONFIG="$WORK/authd.conf" "$I/authctl" add root1 admin 2>&1)
expect_eq "authctl add with a config" 0 "$?"
cd "$WORK" || exit 1
out=$(env -i PATH=/usr/bin:/bin "$I/authctl" list 2>&1)
rc=$?
expect_eq "authctl without its config: exit 1" 1 "$rc"
expect_match "authctl without its config names the file beside it" "$I/authd.conf" "$out"
expect_eq "and made no state directory" no "$([[ -e $WORK/var ]] && echo yes || echo no)"

finish
