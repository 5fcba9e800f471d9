#!/usr/bin/env bash
# scripts/deps.sh [build|run|test|bench|fuzz]
#
# Makes sure the Debian packages authd needs are installed. Each level
# includes the previous one:
#   build  compiler, CMake and the libraries authd links against (libpq too)
#   run    + lighttpd and spawn-fcgi (what `make run` serves with), curl and
#          jq (README's session against it uses them)
#   test   + GoogleTest, curl, jq, gojq (the tests' fast jq), lmdb-utils, procps, nodejs and npm (what
#          `make test` needs; node runs the OAuth test provider of test/oauth)
#          and nginx (the third front end of the black-box suite, and the
#          forward-auth test's auth_request in front of GET /auth/check),
#          chromium (the browser tests of test/browser drive it with npm
#          playwright-core), postgresql (throw-away clusters for the
#          PostgreSQL store's tests; the system's default cluster is never
#          started) and pgbouncer (started by the tests in front of them)
#   bench  build + run + wrk, Google Benchmark, curl, jq, procps, and the
#          other front servers and the peers `make bench` compares authd
#          with: nginx, apache2, nodejs and npm (bench/peers' Express and
#          Fastify apps, installed by the benchmark with `npm ci`)
#   fuzz   build + clang-19 and its runtime libraries (libFuzzer, ASan, UBSan)
#          for `make fuzz` (Debian 12's clang 14 cannot compile C++23 <expected>)
#
# nodejs and npm count as present when the `node` and `npm` commands exist,
# whatever installed them (NodeSource's nodejs package bundles npm and
# conflicts with Debian's npm package).
#
# When everything is present it prints nothing and exits 0 without touching
# apt. When something is missing:
#   - as root: installs it with apt-get (running `apt-get update` first only
#     when the package lists are empty, or again when the install fails);
#     the lighttpd service that Debian's package would start on port 80 is
#     kept from starting (policy-rc.d) and, if it runs anyway, stopped;
#   - otherwise: names the missing packages and the command to run, exit 1.
set -euo pipefail

level=${1:-build}

build_pkgs=(g++ cmake make pkg-config libjansson-dev
            libssl-dev liblmdb-dev libcurl4-openssl-dev libargon2-dev libpq-dev)
# bcrypt hashes imported from the Express app are checked by libxcrypt (crypt_rn).
build_pkgs+=(libcrypt-dev)
# Second factor (issue 19): QR codes of TOTP enrolment (lib/mfa/qr_svg.cpp),
# CBOR of WebAuthn ceremonies (lib/mfa/cbor_reader.cpp).
build_pkgs+=(libqrencode-dev libcbor-dev)
# Directory users (issue 44): OpenLDAP's client library (lib/directory/ldap_client.cpp).
build_pkgs+=(libldap-dev)
run_pkgs=(lighttpd spawn-fcgi curl jq)
bench_pkgs=(wrk libbenchmark-dev curl jq procps)
# mdb_stat: the write transactions per request on LMDB (bench/lib/measure.sh db_counters).
bench_pkgs+=(lmdb-utils)
# make bench also measures behind nginx and Apache, and Node peers (bench/peers).
bench_pkgs+=(nginx apache2 nodejs npm)
# bench/ceiling/ceiling.cpp, the libfcgi reference responder (authd itself has
# its own FastCGI codec and does not link libfcgi).
bench_pkgs+=(libfcgi-dev)
# lld-19: the sanitizer build's linker (CMakeLists.txt), several times faster than GNU ld.
fuzz_pkgs=(clang-19 libclang-rt-19-dev lld-19)
test_pkgs=(libgtest-dev curl jq gojq lmdb-utils procps nodejs npm)
# nginx: the third front end of the black-box suite (conf/nginx/authd.conf,
# TEST_FRONTEND=nginx) and t_forward_auth_nginx.sh's auth_request.
test_pkgs+=(nginx)
# Operations (t_ops_*): promtool checks GET /metrics; python3-bcrypt (run with
# /usr/bin/python3) makes the bcrypt hashes of a mongoexport file.
test_pkgs+=(prometheus python3-bcrypt)
# Apache 2.4 (mod_proxy_fcgi, mod_authnz_fcgi): the second front end the
# black-box suite runs on (conf/apache/, TEST_FRONTEND=apache).
test_pkgs+=(apache2)
# Shared hosting (test/hosting): Apache runs the release through mod_fcgid
# (and, in a second run, plain mod_cgi, which comes with apache2).
test_pkgs+=(libapache2-mod-fcgid)
# ccache (test/ci.cmake): the Debian package build of package.deb compiles the
# same sources with the same flags as the suite's own build: served from it.
test_pkgs+=(ccache)
# authd as OpenID provider: Apache's mod_auth_openidc is the relying party of
# t_oidc_mod_auth_openidc.sh.
test_pkgs+=(libapache2-mod-auth-openidc)
# The fault tests (t_load_*, t_shutdown_*): wrk drives the load test,
# iproute2's ss counts the requests queued on authd's socket.
test_pkgs+=(wrk iproute2)
# The browser tests (test/browser/): the pages in Debian's Chromium, driven by
# npm playwright-core (installed by the test itself with `npm ci`; it downloads
# no browser).
test_pkgs+=(chromium)
# The PostgreSQL store (label postgresql): throw-away clusters of the Debian
# server (initdb, pg_ctl, pg_basebackup, psql) under temporary directories,
# run as its unprivileged `postgres` user; the system's cluster is not used.
test_pkgs+=(postgresql)
# pgbouncer (transaction mode) between the nodes and PostgreSQL in
# blackbox-pgbouncer.* (test/blackbox/pg_nodes.sh starts its own on a free
# loopback port; the package's service is not ours to run).
test_pkgs+=(pgbouncer)
# Public-key tokens (t_token_jwks_*.sh): PyJWT verifies authd's EdDSA/ES256
# tokens against the JWKS (npm jose, the second verifier, comes from test/jwks
# with `npm ci`).
test_pkgs+=(python3-jwt python3-cryptography)
# The suite through Prism (label prism): node runs test/prism/validating-proxy.cjs
# with npm @stoplight/prism-http (installed by the first test with `npm ci`),
# jq reads its verdicts; both are above already.
# t_keepalive.sh, t_sec_slow_clients.sh: small FastCGI and slow-HTTP clients
# (test/blackbox/fcgi_client.py, slow_http.py), standard library only.
test_pkgs+=(python3)
# Second factor (t_mfa_totp.sh): TOTP codes from an independent implementation.
test_pkgs+=(oathtool)

# Third hardening round (issue 23, class 5) and the H2O front end: Debian's h2o.
test_pkgs+=(h2o)
# Mail (issue 24): a real SMTP server the tests start (aiosmtpd, its own process).
test_pkgs+=(python3-aiosmtpd)
# OpenID Connect provider (issue 25): Apache's mod_auth_openidc as a relying party.
test_pkgs+=(libapache2-mod-auth-openidc)
# Debian package (issue 27): debhelper, lintian, systemd-socket-activate and
# systemd-analyze, logrotate; Caddy as one more front end.
test_pkgs+=(debhelper lintian devscripts fakeroot systemd logrotate caddy)
# docs/openapi.yaml against the route table (test/docs/check_openapi.py), and
# requests drawn from it by Hypothesis whose answers jsonschema checks against
# it (test/docs/generated_requests.py, t_contract_generated.sh).
test_pkgs+=(python3-yaml python3-hypothesis python3-jsonschema)
# t_authctl_cli.sh runs authctl's bash completion (conf/bash-completion/authctl).
test_pkgs+=(bash-completion)
# test/install/t_example.sh builds examples/notes, a libfcgi program that
# links the installed core (authd itself does not link libfcgi).
test_pkgs+=(libfcgi-dev)
# Directory users (t_directory_ldap.sh): a throw-away OpenLDAP server (slapd,
# its own slapd.d under a temporary directory; the system's is never started)
# and ldapmodify/ldapsearch to change it under a running authd.
test_pkgs+=(slapd ldap-utils)
# Active Directory (t_directory_ad.sh): a throw-away Samba domain controller
# (samba-tool domain provision into a temporary directory, samba serving LDAP
# only; /etc/samba and the system's smbd, nmbd and samba-ad-dc are never used).
test_pkgs+=(samba)
# The device grant from the command line (t_oidc_device.sh): oidc-agent's
# oidc-gen --flow device and oidc-token, with an agent of the test's own.
test_pkgs+=(oidc-agent-cli)

# Packages satisfied by a command on PATH, however it was installed.
declare -A pkg_command=([nodejs]=node [npm]=npm)

case $level in
  build) wanted=("${build_pkgs[@]}") ;;
  run)   wanted=("${build_pkgs[@]}" "${run_pkgs[@]}") ;;
  test)  wanted=("${build_pkgs[@]}" "${run_pkgs[@]}" "${test_pkgs[@]}") ;;
  bench) wanted=("${build_pkgs[@]}" "${run_pkgs[@]}" "${bench_pkgs[@]}") ;;
  fuzz)  wanted=("${build_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
  -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [build|run|test|bench|fuzz]" >&2; exit 2 ;;
esac

say() { printf 'deps: %s\n' "$*" >&2; }

# Prints the wanted packages that are not installed (one dpkg-query call).
missing_packages() {
  local installed
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "dpkg-query not found: this script knows how to install on Debian only."
    printf '%s\n' "${wanted[@]}"
    return
  fi
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${wanted[@]}" 2>/dev/null \
              | awk '$2 == "installed" { print $1 }' | sort -u) || true
  local p
  for p in "${wanted[@]}"; do
    if [[ -n ${pkg_command[$p]:-} ]] && command -v "${pkg_command[$p]}" >/dev/null 2>&1; then
      continue
    fi
    grep -qxF -- "$p" <<<"$installed" || printf '%s\n' "$p"
  done
}

mapfile -t missing < <(missing_packages)
((${#missing[@]} == 0)) && exit 0

install_cmd="apt-get install -y --no-install-recommends ${missing[*]}"

if [[ $(id -u) -ne 0 ]]; then
  say "missing Debian packages (level '$level'): ${missing[*]}"
  say "install them as root with:"
  say "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive $install_cmd"
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  say "missing packages: ${missing[*]}, and apt-get is not available to install them"
  exit 1
fi

say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive

# Keep package maintainer scripts from starting services (lighttpd would
# grab port 80). Only when no policy-rc.d exists already; removed on exit.
policy=/usr/sbin/policy-rc.d
our_policy=0
cleanup() { if ((our_policy)); then rm -f "$policy"; fi; }
trap cleanup EXIT
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# installed temporarily by authd scripts/deps.sh\nexit 101\n' >"$policy"
  chmod 0755 "$policy"
  our_policy=1
fi

lists_empty() {
  ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null
}

apt_install() {
  apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}"
}

if lists_empty; then
  say "apt package lists are empty: running apt-get update"
  apt-get update
fi
if ! apt_install; then
  say "install failed: refreshing package lists and retrying"
  apt-get update
  apt_install
fi

# If the lighttpd package was just installed and its service runs anyway
# (e.g. an existing policy-rc.d allowed it), stop it: port 80 is not ours.
if printf '%s\n' "${missing[@]}" | grep -qx lighttpd; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now lighttpd >/dev/null 2>&1 || true
  fi
  if [[ -x /etc/init.d/lighttpd ]] && [[ -s /run/lighttpd.pid ]]; then
    /etc/init.d/lighttpd stop >/dev/null 2>&1 || true
  fi
fi
# Likewise Apache: the tests start their own apache2 from conf/apache/ on a
# loopback port; Debian's apache2 service must not hold port 80.
if printf '%s\n' "${missing[@]}" | grep -qx apache2; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now apache2 >/dev/null 2>&1 || true
  fi
  if [[ -x /etc/init.d/apache2 ]] && [[ -s /run/apache2/apache2.pid ]]; then
    /etc/init.d/apache2 stop >/dev/null 2>&1 || true
  fi
fi

# Same for nginx (test level): its package starts a server on port 80 too.
if printf '%s\n' "${missing[@]}" | grep -qx nginx; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now nginx >/dev/null 2>&1 || true
  fi
  if [[ -x /etc/init.d/nginx ]] && [[ -s /run/nginx.pid ]]; then
    /etc/init.d/nginx stop >/dev/null 2>&1 || true
  fi
fi

# And PostgreSQL: the tests run throw-away clusters of their own; the
# package's default cluster ("main", port 5432) is not ours to run.
if printf '%s\n' "${missing[@]}" | grep -qx postgresql; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now postgresql >/dev/null 2>&1 || true
  fi
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters --no-header 2>/dev/null | awk '$4 == "online" { print $1, $2 }' |
      while read -r version cluster; do pg_ctlcluster "$version" "$cluster" stop >/dev/null 2>&1 || true; done
  fi
fi
if printf '%s\n' "${missing[@]}" | grep -qx pgbouncer; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now pgbouncer >/dev/null 2>&1 || true
  fi
fi

# And slapd: the directory tests start their own on a loopback port; the
# package's system server is not ours to run.
if printf '%s\n' "${missing[@]}" | grep -qx slapd; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now slapd >/dev/null 2>&1 || true
  fi
  if [[ -x /etc/init.d/slapd ]] && [[ -s /run/slapd/slapd.pid ]]; then
    /etc/init.d/slapd stop >/dev/null 2>&1 || true
  fi
fi

# And samba: the AD test provisions and runs its own domain controller; the
# package's system servers are not ours to run.
if printf '%s\n' "${missing[@]}" | grep -qx samba; then
  if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
    systemctl disable --now smbd nmbd samba-ad-dc >/dev/null 2>&1 || true
  fi
  for service in smbd nmbd samba-ad-dc; do
    [[ -x /etc/init.d/$service ]] && /etc/init.d/$service stop >/dev/null 2>&1 || true
  done
fi

mapfile -t still < <(missing_packages)
if ((${#still[@]})); then
  say "still missing after install: ${still[*]}"
  exit 1
fi
say "done"
