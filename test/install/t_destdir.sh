#!/usr/bin/env bash
# make install honours PREFIX and DESTDIR: staging with DESTDIR puts every
# file under DESTDIR$PREFIX and nothing under $PREFIX itself; authd.pc names
# $PREFIX (where the files will be), never the staging directory's parent or
# the configure-time default.
#
# Environment (set by CTest, see CMakeLists.txt): BUILD_DIR, SOURCE_DIR.
source "$(dirname "${BASH_SOURCE[0]}")/../blackbox/harness.sh"

BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
CMAKE_COMMAND=${CMAKE_COMMAND:-cmake}
make_temp_dir T destdir

# A prefix that does not exist on this machine, so that a file written
# there by mistake is noticed.
PREFIX=/opt/authd-destdir-test-$$
STAGE=$T/stage

step "the Makefile passes PREFIX and DESTDIR to cmake --install"
recipe=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -n -C "$SOURCE_DIR" install \
           BUILD_DIR="$BUILD_DIR" PREFIX="$PREFIX" DESTDIR="$STAGE" 2>&1 | grep -F 'cmake --install')
expect_eq "make -n install PREFIX=... DESTDIR=..." \
  "DESTDIR=$STAGE cmake --install $BUILD_DIR --prefix $PREFIX" "$recipe"

step "DESTDIR=\$STAGE cmake --install --prefix $PREFIX (the recipe)"
if DESTDIR=$STAGE "$CMAKE_COMMAND" --install "$BUILD_DIR" --prefix "$PREFIX" >"$T/install.log" 2>&1; then
  pass "staged install"
else
  fail "staged install" "$(tail -n 20 "$T/install.log")"
  finish
fi
expect_eq "nothing written to $PREFIX itself" "absent" "$([[ -e $PREFIX ]] && echo present || echo absent)"
outside=$(find "$STAGE" -mindepth 1 \( -path "$STAGE$PREFIX" -prune \) -o -type f -print | head -n 5)
expect_eq "every staged file is under DESTDIR\$PREFIX" "" "$outside"
for f in bin/authd bin/authctl include/authd/core.hpp include/authd/access_rules.hpp \
         share/authd/conf/authd.conf share/authd/conf/lighttpd.conf share/authd/www/index.html; do
  if [[ -f $STAGE$PREFIX/$f ]]; then pass "staged $f"; else fail "staged $f"; fi
done
LIBA=$(find "$STAGE$PREFIX" -name libauthd.a | head -n 1)
PC=$(find "$STAGE$PREFIX" -name authd.pc -path '*/pkgconfig/*' | head -n 1)
expect_match "staged libauthd.a under \$PREFIX/lib*" "^$STAGE$PREFIX/lib[^ ]*/libauthd\\.a\$" "$LIBA"
expect_match "staged authd.pc under \$PREFIX/lib*/pkgconfig" "^$STAGE$PREFIX/lib[^ ]*/pkgconfig/authd\\.pc\$" "$PC"
expect_eq "staged binaries are executable" "yes" "$([[ -x $STAGE$PREFIX/bin/authd && -x $STAGE$PREFIX/bin/authctl ]] && echo yes)"
if grep -rqs -- "$STAGE" "$STAGE$PREFIX/share" "$PC"; then
  fail "no staged file names the staging directory"
else
  pass "no staged file names the staging directory"
fi

if [[ -n $PC ]]; then
  # $PREFIX/include once the package is unpacked (absolute prefix), or the
  # staged copy when authd.pc is relative to ${pcfiledir}: both are right.
  includedir=$(PKG_CONFIG_PATH=$(dirname "$PC") pkg-config --variable=includedir authd 2>&1)
  expect_match "authd.pc's includedir is \$PREFIX/include" "^($STAGE)?$PREFIX/(lib[^ ]*/pkgconfig/\\.\\./\\.\\./(\\.\\./)?)?include\$" "$includedir"
  libdir=$(PKG_CONFIG_PATH=$(dirname "$PC") pkg-config --variable=libdir authd 2>&1)
  expect_match "authd.pc's libdir is under \$PREFIX" "^($STAGE)?$PREFIX/" "$libdir"
  # libpq is required exactly when the build has the PostgreSQL store.
  with_pg=$(sed -n 's/^AUTHD_WITH_POSTGRESQL:BOOL=//p' "$BUILD_DIR/CMakeCache.txt")
  requires=$(sed -n 's/^Requires: *//p' "$PC")
  if [[ $with_pg == ON ]]; then
    expect_match "authd.pc requires libpq (AUTHD_WITH_POSTGRESQL=ON)" "(^| )libpq( |\$)" "$requires"
  else
    expect_eq "authd.pc requires no libpq (AUTHD_WITH_POSTGRESQL=${with_pg:-unset})" "" \
      "$(tr ' ' '\n' <<<"$requires" | grep -x libpq)"
  fi
fi

finish
