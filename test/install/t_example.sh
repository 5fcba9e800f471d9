#!/usr/bin/env bash
# The library, as another project uses it: install the build tree into a
# temporary prefix (what `make install PREFIX=...` runs), build
# examples/notes against the INSTALLED library with pkg-config, and run it
# under spawn-fcgi behind lighttpd, next to the installed authd (for /signin)
# on the same state directory. The notes program guards its routes with
# Core::from_environment(), ->check() and http::to_http().
#
# Environment (set by CTest, see CMakeLists.txt): BUILD_DIR, SOURCE_DIR,
# CXX (the compiler authd was built with), EXAMPLE_FLAGS (sanitizers).
source "$(dirname "${BASH_SOURCE[0]}")/../blackbox/harness.sh"

BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
CMAKE_COMMAND=${CMAKE_COMMAND:-cmake}
need_tools "$CMAKE_COMMAND" pkg-config c++

NOTES_PID=
stop_at_exit NOTES_PID notes
make_temp_dir T install
for f in install.log pkg.log configure.log build.log notes.log; do extra_log "$T/$f"; done
PREFIX=$T/prefix

step "cmake --install into a temporary prefix"
if "$CMAKE_COMMAND" --install "$BUILD_DIR" --prefix "$PREFIX" >"$T/install.log" 2>&1; then
  pass "cmake --install $BUILD_DIR --prefix \$TMP"
else
  fail "cmake --install $BUILD_DIR --prefix \$TMP"
  finish
fi
PC=$(find "$PREFIX" -name authd.pc -path '*/pkgconfig/*' | head -n 1)
LIBA=$(find "$PREFIX" -name libauthd.a | head -n 1)
for f in "$PC" "$LIBA" "$PREFIX/include/authd/core.hpp" "$PREFIX/include/authd/access_rules.hpp" \
         "$PREFIX/bin/authd" "$PREFIX/bin/authctl" "$PREFIX/share/authd/conf/lighttpd.conf"; do
  if [[ -n $f && -e $f ]]; then pass "installed ${f#"$PREFIX"/}"; else fail "installed file missing: ${f:-authd.pc/libauthd.a}"; fi
done
[[ -n $PC ]] || finish

step "pkg-config authd"
PKG_CONFIG_PATH=$(dirname "$PC")
export PKG_CONFIG_PATH
pc_prefix=$(pkg-config --variable=prefix authd 2>>"$T/pkg.log")
pc_includedir=$(pkg-config --variable=includedir authd 2>>"$T/pkg.log")
# Any spelling of the prefix that resolves to it (an absolute path, or one
# relative to ${pcfiledir}) is fine.
if [[ -d $pc_includedir && $(cd "$pc_includedir" && pwd -P) == $(cd "$PREFIX/include" && pwd -P) ]]; then
  pass "authd.pc's includedir is the install prefix's (\$TMP/include)"
else
  fail "authd.pc names the prefix given to cmake --install / make install PREFIX=" \
       "prefix=$pc_prefix includedir=$pc_includedir, installed under $PREFIX" \
       "(authd.pc is configured with the configure-time CMAKE_INSTALL_PREFIX)"
  # Go on with a corrected copy, so that the rest is still exercised.
  mkdir -p "$T/pc-fixed"
  sed "s|^prefix=.*|prefix=$PREFIX|" "$PC" >"$T/pc-fixed/authd.pc"
  PKG_CONFIG_PATH=$T/pc-fixed:$PKG_CONFIG_PATH
  echo "     (continuing with a corrected copy of authd.pc)"
fi
libs=$(pkg-config --libs authd 2>>"$T/pkg.log")
expect_match "pkg-config --libs authd names libauthd and its dependencies" \
  '-lauthd_http -lauthd .*-ljansson.*-llmdb.*-largon2.*-lcurl.*-lcrypto' "$libs"

step "examples/notes: configure and build against the installed library"
# EXAMPLE_FLAGS: the sanitizers of a sanitized authd build (see CMakeLists.txt).
if "$CMAKE_COMMAND" -S "$SOURCE_DIR/examples/notes" -B "$T/notes-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
     -DCMAKE_CXX_FLAGS="${EXAMPLE_FLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${EXAMPLE_FLAGS:-}" \
     >"$T/configure.log" 2>&1; then
  pass "cmake configures examples/notes with PKG_CONFIG_PATH=\$TMP/lib/pkgconfig"
else
  fail "cmake configures examples/notes"
  finish
fi
if "$CMAKE_COMMAND" --build "$T/notes-build" -j2 >"$T/build.log" 2>&1; then
  pass "examples/notes builds"
else
  fail "examples/notes builds"
  finish
fi
NOTES_BIN=$T/notes-build/notes
if grep -rqs -- "$SOURCE_DIR/lib" "$T/notes-build/CMakeFiles/notes.dir/flags.make" "$T/notes-build/CMakeFiles/notes.dir/link.txt"; then
  fail "the example is built from the installed copy, not the source tree"
else
  pass "the example is built from the installed copy, not the source tree"
fi

step "run it behind lighttpd next to the installed authd"
NOTES_SOCKET=$T/notes.sock
cat >"$T/lighttpd.conf" <<EOF
include "$PREFIX/share/authd/conf/lighttpd.conf"
# The notes program: its own FastCGI socket, its own paths.
\$HTTP["url"] =~ "^/notes(/|\$)" {
  fastcgi.server = (
    "/" => ((
      "socket"              => env.NOTES_SOCKET,
      "check-local"         => "disable",
      "fix-root-scriptname" => "enable",
      "disable-time"        => 0,
    )),
  )
}
EOF
export LIGHTTPD_CONF=$T/lighttpd.conf NOTES_SOCKET
export AUTHD_BIN=$PREFIX/bin/authd AUTHCTL_BIN=$PREFIX/bin/authctl
stack_start
expect_eq "the installed authd serves /signin" "$AUTHD_BIN" "$(readlink "/proc/$AUTHD_PID/exe")"

# Same AUTHD_* environment as authd (AUTHD_STATE_DIR from stack_start).
fcgi_spawn "$NOTES_SOCKET" "$T/notes.log" "$NOTES_BIN"
# shellcheck disable=SC2034  # stopped at exit (stop_at_exit above)
NOTES_PID=$SPAWNED_PID
[[ -S $NOTES_SOCKET ]] || { fail "notes started under spawn-fcgi"; finish; }

role_users --note " (installed authd)" user writer admin

step "the notes routes, guarded by the library"
http GET /notes
expect_status 401 "GET /notes without a token"
expect_json "401 body" .error "Access Denied"
expect_header "401 challenge" WWW-Authenticate '^Bearer realm="authd"$'
expect_header "401 is JSON" Content-Type '^application/json'
http GET /notes -H 'Authorization: Bearer not.a.token'
expect_status 401 "a bad token"
expect_header "bad token: invalid_token" WWW-Authenticate 'error="invalid_token"'
http GET /notes -H "$(role_bearer user)"
expect_status 200 "user can GET /notes"
expect_eq "no notes yet" "[]" "$BODY"
http POST /notes -H "$(role_bearer user)" -H 'Content-Type: application/json' -d '{"text":"hi"}'
expect_status 403 "user cannot POST /notes"
expect_json "403 body" .error "Access Denied"
expect_header "403 challenge" WWW-Authenticate 'error="insufficient_scope"'
http POST /notes -H "$(role_bearer writer)" -H 'Content-Type: application/json' -d '{"text":"from the writer"}'
expect_status 201 "writer can POST /notes"
expect_json "the note names its author" .author "writer-1"
id=$(json .id)
http GET /notes -H "$(role_bearer user)"
expect_json "user reads the note" '.[0].text' "from the writer"
http DELETE "/notes/$id" -H "$(role_bearer user)"
expect_status 403 "user cannot DELETE"
expect_json "DELETE 403 body" .error "Access Denied"
http DELETE "/notes/$id" -H "$(role_bearer writer)"
expect_status 403 "writer cannot DELETE"
http DELETE "/notes/$id" -H "$(role_bearer admin)"
expect_status 200 "admin can DELETE"
expect_json "deleted" .deleted "true"
http DELETE "/notes/$id" -H "$(role_bearer admin)"
expect_status 404 "DELETE again: 404"
http PUT /notes -H "$(role_bearer admin)" -d '{}'
expect_status 405 "PUT /notes: 405"

step "authctl changes reach the library on the next request"
authctl role user-1 admin >/dev/null || fail "authctl role user-1 admin"
http POST /notes -H "$(role_bearer writer)" -H 'Content-Type: application/json' -d '{"text":"second"}'
id=$(json .id)
http DELETE "/notes/$id" -H "$(role_bearer user)"
expect_status 200 "promoted user can DELETE with the same token"
authctl delete user-1 >/dev/null || fail "authctl delete user-1"
http GET /notes -H "$(role_bearer user)"
expect_status 401 "token of a deleted user"

finish
