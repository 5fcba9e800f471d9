#!/usr/bin/env bash
# scripts/dist.sh [--build-dir DIR] [--out DIR] - builds the relocatable
# release for shared hosting (what `make dist` runs):
#
#   OUT/authd-<version>-linux-<arch>.tar.gz
#     authd-<version>-linux-<arch>/
#       install.sh          ./install.sh --docroot DIR [--state DIR] [--url URL]
#       README.md           the "Shared hosting" section of README.md
#       RELEASE-NOTES.md    what the release needs from the host (glibc, libraries)
#       VERSION
#       bin/authd           the program (FastCGI or CGI); becomes STATE/authd.fcgi,
#                           which DOCROOT/authd.fcgi (a two-line script) starts
#       bin/authctl         the admin command; copied into the state directory
#       lib/                the libraries without a static archive; copied
#                           into STATE/lib, the programs' one search path
#                           (RUNPATH $ORIGIN/lib, outside every document root)
#       conf/authd.conf     the default configuration (documented), with
#                           trusted_proxies and metrics_allow empty
#       conf/htaccess       the .htaccess block install.sh writes
#       www/                the pages
#
# The binaries come from a RelWithDebInfo build (stripped) in DIR (default build-dist) with
# -DAUTHD_RELOCATABLE=ON (cmake/Relocatable.cmake: libargon2, LMDB, jansson,
# libxcrypt, libstdc++ linked statically) and a relative default config
# (authd.conf beside the program). Before packing, the binaries are checked
# against the claims of packaging/hosting/RELEASE-NOTES.md (oldest glibc,
# libraries from the host): a release never claims less than it needs.
# OUT defaults to DIR. JOBS (default 2) parallel compile jobs.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=$root/build-dist
out_dir=
jobs=${JOBS:-2}
while (($#)); do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "usage: $0 [--build-dir DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
out_dir=${out_dir:-$build_dir}

"$root/scripts/deps.sh" build
for tool in strip readelf tar gzip; do
  command -v "$tool" >/dev/null || { echo "dist: '$tool' is missing (binutils, tar, gzip)" >&2; exit 1; }
done

version=$(sed -n 's/^project(authd VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ -n $version ]] || { echo "dist: no version in CMakeLists.txt" >&2; exit 1; }
arch=$(uname -m)
name=authd-$version-linux-$arch

# :STRING keeps CMake from turning the relative default into an absolute path.
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTHD_RELOCATABLE=ON \
  -DAUTHD_BUILD_TESTS=OFF -DAUTHD_DEFAULT_CONFIG:STRING=authd.conf >/dev/null
cmake --build "$build_dir" -j"$jobs" --target authd authctl

stage_root=$build_dir/stage
stage=$stage_root/$name
rm -rf "$stage_root"
mkdir -p "$stage/bin" "$stage/conf"
strip -o "$stage/bin/authd" "$build_dir/authd"
strip -o "$stage/bin/authctl" "$build_dir/authctl"
chmod 0755 "$stage/bin/authd" "$stage/bin/authctl"
# The libraries without a static archive (cmake/Relocatable.cmake), from
# where this machine's loader finds them for the program.
mkdir -p "$stage/lib"
for lib in $(sed -n 's/^- Bundled in lib\/: //p' "$root/packaging/hosting/RELEASE-NOTES.md"); do
  path=$(ldd "$build_dir/authd" | awk -v lib="$lib" '$1 == lib { print $3 }')
  [[ -n $path && -f $path ]] || { echo "dist.sh: $lib not found for $build_dir/authd" >&2; exit 1; }
  strip --strip-unneeded -o "$stage/lib/$lib" "$path"
  chmod 0644 "$stage/lib/$lib"
done
# The default configuration, but for shared hosting: every site of the host
# reaches Apache, and so authd, from loopback, so loopback is trusted with
# nothing: no proxy (X-Forwarded-For is not believed) and no /metrics, unless
# the user lists addresses (packaging/hosting/RELEASE-NOTES.md).
sed -e '/^#trusted_proxies = /c\
# The shared-hosting release: none. Every site of the host reaches Apache,\
# and so authd, from loopback: a proxy trusted there would let any of them\
# choose the client address (and so dodge every limit per address).\
trusted_proxies =' \
    -e '/^#metrics_allow = /c\
# The shared-hosting release: nobody (every site of the host reaches Apache\
# from loopback). List your monitoring address to allow it.\
metrics_allow =' "$root/conf/authd.conf" >"$stage/conf/authd.conf"
for setting in trusted_proxies metrics_allow; do
  grep -qx "$setting =" "$stage/conf/authd.conf" || { echo "dist.sh: no '#$setting = ' line in conf/authd.conf to set" >&2; exit 1; }
done
cp "$root/packaging/hosting/htaccess.in" "$stage/conf/htaccess"
cp "$root/packaging/hosting/install.sh" "$stage/install.sh"
chmod 0755 "$stage/install.sh"
cp -R "$root/www" "$stage/www"
printf '%s\n' "$version" >"$stage/VERSION"
sed "s/@VERSION@/$version/g; s/@ARCH@/$arch/g" "$root/packaging/hosting/RELEASE-NOTES.md" >"$stage/RELEASE-NOTES.md"
{
  printf '# authd %s for shared hosting (linux-%s)\n\n' "$version" "$arch"
  printf 'What the host needs: RELEASE-NOTES.md. The same text is in the project README.\n\n'
  # The "Shared hosting" section of the project README, one level up.
  awk '/^## Shared hosting/ { on = 1 } on && /^## / && !/^## Shared hosting/ { exit } on' "$root/README.md" |
    sed 's/^##/#/'
} >"$stage/README.md"

# A release never claims less than it needs.
"$root/packaging/hosting/check-release.sh" "$stage"

mkdir -p "$out_dir"
tarball=$out_dir/$name.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}" \
  -C "$stage_root" -czf "$tarball.tmp" "$name"
mv -f "$tarball.tmp" "$tarball"
printf 'dist: %s (%s bytes)\n' "$tarball" "$(stat -c %s "$tarball")"
