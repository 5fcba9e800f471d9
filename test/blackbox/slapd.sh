# shellcheck shell=bash
# test/blackbox/slapd.sh - a throw-away OpenLDAP server (Debian's slapd) for
# the directory tests. Source it after harness.sh:
#
#   source "$(dirname "$0")/slapd.sh"
#   slapd_setup            # SLAPD_DIR, SLAPD_PORT, SLAPD_URL, SLAPD_LDAPS_URL (TLS from a
#                          # test CA, SLAPD_DIR/ca.pem), SLAPD_LDAPI; builds cn=config
#   slapd_start            # starts it (loopback port and ldapi://), loads slapd_base_ldif
#   ldap_modify <<'EOF'    # changes as the directory's root (cn=admin,dc=example,dc=org)
#   dn: ...
#   EOF
#   slapd_stop
#
# cn=config is built by slapadd from an LDIF under SLAPD_DIR/slapd.d (the
# system's /etc/ldap/slapd.d is never read): an mdb database for
# dc=example,dc=org with the memberof overlay (memberOf kept by the server)
# and the ppolicy overlay (pwdAccountLockedTime locks an account), the
# service account cn=authd,ou=services,dc=example,dc=org allowed to read
# entries (never userPassword). The entries are added through the running
# server (ldapadd), so that memberof sees the groups.

SLAPD_SUFFIX=dc=example,dc=org
SLAPD_ROOT_DN=cn=admin,$SLAPD_SUFFIX
SLAPD_ROOT_PW='root secret'
SLAPD_SERVICE_DN=cn=authd,ou=services,$SLAPD_SUFFIX
SLAPD_SERVICE_PW='service secret'

slapd_setup() {
  SLAPD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/authd-slapd.XXXXXX")
  mkdir -p "$SLAPD_DIR/slapd.d" "$SLAPD_DIR/data"
  SLAPD_PORT=$(pick_port) || _harness_die "slapd: no free port"
  SLAPD_URL="ldap://127.0.0.1:$SLAPD_PORT"
  SLAPD_TLS_PORT=$(pick_port) || _harness_die "slapd: no free port"
  # libldap checks the certificate of ldaps://localhost against the machine's
  # name: the literal address is the one the certificate names.
  SLAPD_LDAPS_URL="ldaps://127.0.0.1:$SLAPD_TLS_PORT"
  # The machine's name, when it resolves to 127.0.0.1: a host name that is not
  # "localhost" counts as off loopback for authd (StartTLS required), while the
  # connection stays on this machine. "" when it resolves elsewhere.
  SLAPD_HOST_NAME=$(hostname 2>/dev/null || true)
  [[ -n $SLAPD_HOST_NAME && $(getent ahostsv4 "$SLAPD_HOST_NAME" | awk 'NR == 1 { print $1 }') == 127.0.0.1 ]] ||
    SLAPD_HOST_NAME=
  SLAPD_LDAPI="ldapi://$(printf '%s' "$SLAPD_DIR/ldapi" | jq -sRr @uri)"
  printf '%s\n' "$SLAPD_SERVICE_PW" >"$SLAPD_DIR/service.pw"
  chmod 0600 "$SLAPD_DIR/service.pw"
  slapd_test_ca
  cat >"$SLAPD_DIR/config.ldif" <<EOF
dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: $SLAPD_DIR/slapd.pid
olcTLSCACertificateFile: $SLAPD_DIR/ca.pem
olcTLSCertificateFile: $SLAPD_DIR/server.pem
olcTLSCertificateKeyFile: $SLAPD_DIR/server.key

dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb
olcModuleLoad: memberof
olcModuleLoad: ppolicy

dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema

include: file:///etc/ldap/schema/core.ldif
include: file:///etc/ldap/schema/cosine.ldif
include: file:///etc/ldap/schema/inetorgperson.ldif

dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend

dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcAccess: to * by * none

dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: $SLAPD_SUFFIX
olcRootDN: $SLAPD_ROOT_DN
olcRootPW: $SLAPD_ROOT_PW
olcDbDirectory: $SLAPD_DIR/data
olcDbMaxSize: 67108864
olcDbIndex: objectClass eq
olcDbIndex: uid eq
olcAccess: to attrs=userPassword by self =xw by anonymous auth by * none
olcAccess: to * by dn.exact="$SLAPD_SERVICE_DN" read by self read by * none

dn: olcOverlay={0}memberof,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcMemberOf
olcOverlay: {0}memberof
olcMemberOfRefInt: TRUE

dn: olcOverlay={1}ppolicy,olcDatabase={1}mdb,cn=config
objectClass: olcOverlayConfig
objectClass: olcPPolicyConfig
olcOverlay: {1}ppolicy
olcPPolicyDefault: cn=default,ou=policies,$SLAPD_SUFFIX
olcPPolicyUseLockout: TRUE
EOF
  slapadd -n 0 -F "$SLAPD_DIR/slapd.d" -l "$SLAPD_DIR/config.ldif" >"$SLAPD_DIR/slapadd.log" 2>&1 ||
    { cat "$SLAPD_DIR/slapadd.log" >&2; _harness_die "slapd: slapadd of cn=config failed"; }
  SLAPD_LOADED=0
}

# A test CA (SLAPD_DIR/ca.pem) and the server's certificate for localhost,
# 127.0.0.1 and SLAPD_HOST_NAME signed by it; a second CA (other-ca.pem) that signed nothing here.
slapd_test_ca() {
  local d=$SLAPD_DIR
  {
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=authd test CA' \
      -keyout "$d/ca.key" -out "$d/ca.pem"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=another CA' \
      -keyout "$d/other-ca.key" -out "$d/other-ca.pem"
    openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout "$d/server.key" -out "$d/server.csr"
    printf 'subjectAltName=DNS:localhost,%sIP:127.0.0.1\nbasicConstraints=CA:FALSE\n' \
      "${SLAPD_HOST_NAME:+DNS:$SLAPD_HOST_NAME,}" >"$d/server.ext"
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
      -extfile "$d/server.ext" -out "$d/server.pem"
  } >"$d/ca.log" 2>&1 || { cat "$d/ca.log" >&2; _harness_die "slapd: making the test CA failed"; }
}

# slapd_start: starts the server (again) on the same ports, socket and data.
slapd_start() {
  slapd -F "$SLAPD_DIR/slapd.d" -h "$SLAPD_URL/ ldaps://127.0.0.1:$SLAPD_TLS_PORT/ $SLAPD_LDAPI" -d 0 \
    >>"$SLAPD_DIR/slapd.log" 2>&1 &
  SLAPD_PID=$!
  wait_for_port "$SLAPD_PORT" "$SLAPD_PID" 10 || { cat "$SLAPD_DIR/slapd.log" >&2; _harness_die "slapd did not start"; }
  if ((!SLAPD_LOADED)); then
    slapd_base_ldif | ldapadd -x -H "$SLAPD_LDAPI" -D "$SLAPD_ROOT_DN" -w "$SLAPD_ROOT_PW" >"$SLAPD_DIR/load.log" 2>&1 ||
      { cat "$SLAPD_DIR/load.log" >&2; _harness_die "slapd: loading the entries failed"; }
    SLAPD_LOADED=1
  fi
}

slapd_stop() {
  [[ -n ${SLAPD_PID:-} ]] || return 0
  kill "$SLAPD_PID" 2>/dev/null
  wait "$SLAPD_PID" 2>/dev/null
  SLAPD_PID=
}

slapd_cleanup() {
  slapd_stop
  [[ -n ${SLAPD_DIR:-} && -z ${KEEP_STATE:-} ]] && rm -rf "$SLAPD_DIR"
}

# ldap_modify: an LDIF of changes on stdin, as the root DN.
ldap_modify() {
  ldapmodify -x -H "$SLAPD_LDAPI" -D "$SLAPD_ROOT_DN" -w "$SLAPD_ROOT_PW" >>"$SLAPD_DIR/modify.log" 2>&1
}

# ldap_unlock UID: the ppolicy lock (pwdAccountLockedTime) of uid=UID taken off.
ldap_unlock() {
  ldap_modify <<EOF
dn: uid=$1,ou=people,$SLAPD_SUFFIX
changetype: modify
delete: pwdAccountLockedTime
EOF
}

# The people and groups of the tests: alice (admins), bob (editors), wendy
# (writers), carol (no group), eve (admins; locked by a test), two entries
# with uid twin, far (a referral elsewhere). A groupOfNames must keep a
# member: editors has cn=nobody besides bob, whom a test removes.
slapd_base_ldif() {
  local s=$SLAPD_SUFFIX
  cat <<EOF
dn: $s
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ou=people,$s
objectClass: organizationalUnit
ou: people

dn: ou=other,$s
objectClass: organizationalUnit
ou: other

dn: ou=groups,$s
objectClass: organizationalUnit
ou: groups

dn: ou=services,$s
objectClass: organizationalUnit
ou: services

dn: ou=policies,$s
objectClass: organizationalUnit
ou: policies

dn: cn=default,ou=policies,$s
objectClass: organizationalRole
objectClass: pwdPolicy
cn: default
pwdAttribute: userPassword
pwdLockout: TRUE
pwdMaxFailure: 0

dn: $SLAPD_SERVICE_DN
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: authd
userPassword: $SLAPD_SERVICE_PW

EOF
  local who
  for who in alice bob wendy carol eve; do
    cat <<EOF
dn: uid=$who,ou=people,$s
objectClass: inetOrgPerson
uid: $who
cn: ${who^} Example
sn: Example
mail: $who@example.org
userPassword: $who directory password

EOF
  done
  cat <<EOF
dn: uid=twin,ou=people,$s
objectClass: inetOrgPerson
uid: twin
cn: Twin One
sn: One
userPassword: twin password

dn: uid=twin,ou=other,$s
objectClass: inetOrgPerson
uid: twin
cn: Twin Two
sn: Two
userPassword: twin password

dn: uid=far,ou=people,$s
objectClass: referral
objectClass: extensibleObject
uid: far
ref: ldap://127.0.0.1:1/uid=far,ou=people,$s

dn: cn=admins,ou=groups,$s
objectClass: groupOfNames
cn: admins
member: uid=alice,ou=people,$s
member: uid=eve,ou=people,$s

dn: cn=editors,ou=groups,$s
objectClass: groupOfNames
cn: editors
member: cn=nobody,$s
member: uid=bob,ou=people,$s

dn: cn=writers,ou=groups,$s
objectClass: groupOfNames
cn: writers
member: uid=wendy,ou=people,$s
member: uid=bob,ou=people,$s
EOF
}
