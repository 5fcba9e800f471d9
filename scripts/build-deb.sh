#!/usr/bin/env bash
# scripts/build-deb.sh [OUT_DIR]   (make deb)
#
# Builds the Debian package authd_<version>_<arch>.deb from this checkout with
# debhelper (debian/, dh, compat 13) and checks it with lintian. The sources
# (git's tracked and untracked-but-not-ignored files) are copied to
# OUT_DIR/authd-<version>/ first, so the build never writes into the checkout
# and dpkg-buildpackage's results land in OUT_DIR (default build-deb/):
#   OUT_DIR/authd_<version>_<arch>.deb, .buildinfo, .changes, lintian.txt
# Lintian: errors and warnings fail the build (overrides, each with its
# reason: debian/source/lintian-overrides, debian/authd.lintian-overrides).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(dpkg-parsechangelog -l "$root/debian/changelog" -SVersion)
cmake_version=$(sed -n 's/^project(authd VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
if [[ "$version" != "$cmake_version"* ]]; then
  echo "build-deb: debian/changelog says $version, CMakeLists.txt $cmake_version: add a changelog entry (dch -v)" >&2
  exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

src="$out/authd-$version"
rm -rf "$src" "$out"/authd_"$version"_*
mkdir -p "$src"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -xf - -C "$src"

(cd "$src" && DEB_BUILD_OPTIONS="parallel=${JOBS:-2} ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -b -us -uc)

deb="$out/authd_${version}_${arch}.deb"
changes="$out/authd_${version}_${arch}.changes"
[[ -f "$deb" ]] || { echo "build-deb: $deb was not made" >&2; exit 1; }
# --fail-on warning: a warning fails like an error; overrides (with reasons) are the only way out.
if ! lintian --fail-on error,warning --display-info "$changes" | tee "$out/lintian.txt"; then
  echo "build-deb: lintian found errors or warnings (above; $out/lintian.txt)" >&2
  exit 1
fi
echo "build-deb: $deb"
