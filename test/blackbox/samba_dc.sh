# shellcheck shell=bash
# test/blackbox/samba_dc.sh - a throw-away Active Directory domain controller
# (Debian's samba, provisioned by samba-tool) for the directory tests. Source
# it after harness.sh:
#
#   source "$(dirname "$0")/samba_dc.sh"
#   samba_dc_setup         # SAMBA_DIR, SAMBA_ADDR (a random 127.x.y.z), SAMBA_LDAPS_URL,
#                          # SAMBA_BASE, SAMBA_DIR/ca.pem; provisions the domain AUTHD.TEST
#   samba_dc_start         # starts it: LDAP only (389, 636, 3268, 3269 on SAMBA_ADDR)
#   ad_modify <<'EOF'      # changes as the domain's Administrator (ldapmodify over ldaps://)
#   dn: ...
#   EOF
#   ad_unicode_pwd 'a password'   # a unicodePwd value (base64) for an LDIF
#   samba_dc_stop
#
# Everything is under SAMBA_DIR: the provisioned databases, the smb.conf the
# server runs with (every directory, pid and socket of it there; /etc/samba
# and the system's services are never used), its log. Samba's LDAP ports
# cannot be chosen (no smb.conf option): the server takes 389 and 636 on an
# address of its own in 127.0.0.0/8, which only fails when something listens
# on those ports on every address (the start says so). Samba refuses simple
# binds over ldap:// (ldap server require strong auth): the tests use
# ldaps:// with a certificate for SAMBA_ADDR from a test CA. A changed
# password's old one stops at once (old password allowed period = 0: by
# default Samba takes it, simple binds included, for 60 minutes). Needs root
# (samba-tool keeps NT ACLs in extended attributes).

SAMBA_REALM=AUTHD.TEST
SAMBA_BASE=DC=authd,DC=test
SAMBA_ADMIN_DN=CN=Administrator,CN=Users,$SAMBA_BASE
SAMBA_ADMIN_PW='Admin-Pass-1234'

samba_dc_setup() {
  if ! command -v samba-tool >/dev/null || ! command -v samba >/dev/null; then
    _harness_die "samba_dc: samba is not installed (scripts/deps.sh test)"
  fi
  ((EUID == 0)) || _harness_die "samba_dc: provisioning a domain controller needs root"
  SAMBA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-samba.XXXXXX")
  SAMBA_ADDR=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
  SAMBA_LDAPS_URL="ldaps://$SAMBA_ADDR"
  local d=$SAMBA_DIR
  mkdir -p "$d/run" "$d/log"
  {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=authd test CA' \
      -keyout "$d/ca.key" -out "$d/ca.pem"
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$SAMBA_ADDR" -keyout "$d/server.key" -out "$d/server.csr"
    printf 'subjectAltName=IP:%s\nbasicConstraints=CA:FALSE\n' "$SAMBA_ADDR" >"$d/server.ext"
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
      -extfile "$d/server.ext" -out "$d/server.pem"
    chmod 600 "$d/server.key"
  } >"$d/ca.log" 2>&1 || { cat "$d/ca.log" >&2; _harness_die "samba_dc: making the test CA failed"; }
  (cd "$d" && samba-tool domain provision --realm="$SAMBA_REALM" --domain=AUTHD --server-role=dc \
    --dns-backend=NONE --host-name=dc1 --adminpass="$SAMBA_ADMIN_PW" --targetdir="$d" \
    --option="interfaces=$SAMBA_ADDR/8" --option="bind interfaces only=yes") >"$d/provision.log" 2>&1 ||
    { tail -20 "$d/provision.log" >&2; _harness_die "samba_dc: samba-tool domain provision failed"; }
  cat >"$d/dc.conf" <<EOF
[global]
	netbios name = DC1
	realm = $SAMBA_REALM
	workgroup = AUTHD
	server role = active directory domain controller
	server services = ldap
	interfaces = $SAMBA_ADDR/8
	bind interfaces only = yes
	private dir = $d/private
	lock directory = $d
	state directory = $d/state
	cache directory = $d/cache
	binddns dir = $d/bind-dns
	pid directory = $d/run
	ncalrpc dir = $d/run/ncalrpc
	winbindd socket directory = $d/run/winbindd
	ntp signd socket directory = $d/run/ntp_signd
	log file = $d/log/log.%m
	logging = file
	tls enabled = yes
	tls keyfile = $d/server.key
	tls certfile = $d/server.pem
	tls cafile = $d/ca.pem
	old password allowed period = 0
EOF
}

samba_dc_start() {
  local port
  for port in 389 636; do
    ! (exec 3<>"/dev/tcp/$SAMBA_ADDR/$port") 2>/dev/null ||
      _harness_die "samba_dc: $SAMBA_ADDR:$port is taken (a server listening on every address?): Samba's LDAP ports cannot be moved"
  done
  samba -i -M single -s "$SAMBA_DIR/dc.conf" >>"$SAMBA_DIR/log/samba.out" 2>&1 &
  SAMBA_PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    (exec 3<>"/dev/tcp/$SAMBA_ADDR/636") 2>/dev/null && return 0
    proc_alive "$SAMBA_PID" || break
    sleep 0.05
  done
  cat "$SAMBA_DIR/log/samba.out" "$SAMBA_DIR"/log/log.* >&2 2>/dev/null
  _harness_die "samba_dc: the domain controller did not start"
}

samba_dc_stop() {
  [[ -n ${SAMBA_PID:-} ]] || return 0
  stop_pid "$SAMBA_PID" samba 10
  SAMBA_PID=
}

samba_dc_cleanup() {
  samba_dc_stop
  [[ -n ${SAMBA_DIR:-} && -z ${KEEP_STATE:-} ]] && rm -rf "$SAMBA_DIR"
}

# ad_modify [ldapmodify options]: an LDIF of changes on stdin, as the Administrator.
ad_modify() {
  LDAPTLS_CACERT=$SAMBA_DIR/ca.pem ldapmodify -x -H "$SAMBA_LDAPS_URL" -D "$SAMBA_ADMIN_DN" -w "$SAMBA_ADMIN_PW" \
    "$@" >>"$SAMBA_DIR/modify.log" 2>&1
}

# ad_unicode_pwd PASSWORD: AD's unicodePwd value for an LDIF (`unicodePwd:: ...`):
# the quoted password in UTF-16LE, base64 (set over TLS only).
ad_unicode_pwd() {
  printf '"%s"' "$1" | iconv -f utf-8 -t utf-16le | base64 -w0
}
