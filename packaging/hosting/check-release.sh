#!/usr/bin/env bash
# packaging/hosting/check-release.sh DIR - checks an unpacked (or staged)
# release DIR against the claims of its RELEASE-NOTES.md, from the binaries
# themselves (readelf):
#   - "Oldest C library: glibc X.Y": X.Y is exactly the highest GLIBC_ symbol
#     version that bin/authd and bin/authctl need;
#   - "Libraries from the host: ...": exactly the NEEDED entries of the two
#     that lib/ does not hold (so every other library is inside them or
#     beside them), and no search path but RUNPATH $ORIGIN/lib (STATE/lib
#     once installed: never a directory of the document root);
#   - "Bundled in lib/: ...": exactly the libraries in lib/ (their GLIBC_
#     versions count toward the oldest glibc too);
#   - README.md names each of those libraries and the glibc version.
# Prints what it found; exits 1 on any mismatch. Used by scripts/dist.sh
# before packing and by test/hosting/t_dist_contents.sh on the tarball.
set -euo pipefail
dir=${1:?usage: check-release.sh DIR}
notes=$dir/RELEASE-NOTES.md
bad=0
complain() { printf 'check-release: %s\n' "$*" >&2; bad=1; }

claimed_glibc=$(sed -n 's/^- Oldest C library: glibc \([0-9][0-9.]*\)$/\1/p' "$notes")
claimed_libs=$(sed -n 's/^- Libraries from the host: //p' "$notes" | tr ' ' '\n' | sed '/^$/d' | sort -u)
[[ -n $claimed_glibc ]] || complain "$notes names no oldest glibc"
[[ -n $claimed_libs ]] || complain "$notes names no host libraries"

claimed_bundled=$(sed -n 's/^- Bundled in lib\/: //p' "$notes" | tr ' ' '\n' | sed '/^$/d' | sort -u)
bundled=$(find "$dir/lib" -maxdepth 1 -type f -name 'lib*.so*' -printf '%f\n' 2>/dev/null | sort -u)
[[ $bundled == "$claimed_bundled" ]] ||
  complain "lib/ holds [$(echo $bundled)], the release notes claim [$(echo $claimed_bundled)]"
# What the programs need and lib/ does not hold comes from the host.
needed=$(for b in "$dir/bin/authd" "$dir/bin/authctl"; do
  readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
done | sort -u | grep -vxF -f <(printf '%s\n' $bundled '') )
binaries=("$dir/bin/authd" "$dir/bin/authctl")
for lib in $bundled; do binaries+=("$dir/lib/$lib"); done
glibc=$(for b in "${binaries[@]}"; do
  readelf -V --wide "$b" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/Name: GLIBC_//'
done | sort -uV | tail -n 1)
echo "check-release: needed from the host: $(echo $needed)"
echo "check-release: highest GLIBC_ version: $glibc"

[[ $glibc == "$claimed_glibc" ]] || complain "the programs need GLIBC_$glibc, the release notes claim $claimed_glibc"
[[ $needed == "$claimed_libs" ]] ||
  complain "the programs need [$(echo $needed)], the release notes claim [$(echo $claimed_libs)]"
for b in "$dir/bin/authd" "$dir/bin/authctl"; do
  paths=$(readelf -d "$b" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')
  [[ -z $paths || $paths == '$ORIGIN/lib' ]] || complain "$(basename "$b") has the search path $paths, not \$ORIGIN/lib"
  if readelf -d "$b" | grep -q '(RPATH)'; then complain "$(basename "$b") has an RPATH, not a RUNPATH"; fi
done
for lib in $claimed_libs "glibc $claimed_glibc"; do
  grep -qF -- "$lib" "$dir/README.md" || complain "README.md does not name $lib"
done
exit "$bad"
