#!/usr/bin/env bash
# Failover: a primary and a streaming standby (pg_basebackup, both on
# 127.0.0.1; synchronous replication, so every acknowledged commit is on the
# standby too). authd's database_url names both hosts with
# target_session_attrs=read-write. While clients sign up back to back, the
# standby is promoted and the old primary stopped: authd must carry on against
# the new primary by itself, and no sign-up it acknowledged (201) may be lost.
# During the switch it may answer 503 (JSON), nothing else.
# With PG_NODES_PGBOUNCER=1 (CTest blackbox-pgbouncer.pg_failover) authd
# reaches the primary through pgbouncer in transaction mode, as most sites run
# it: pgbouncer 1.18 names one host, so after the promotion it is pointed at
# the new primary (ini rewritten, RELOAD), as a failover tool would; LISTEN
# goes to PostgreSQL itself with both hosts and target_session_attrs.
source "$(dirname "$0")/harness.sh"
source "$_HARNESS_DIR/pg_nodes.sh"

PRIMARY=$(pg_cluster_new) || { echo "cannot create a PostgreSQL cluster"; exit 1; }
at_exit pg_cluster_remove "$PRIMARY"
pg_cluster_start "$PRIMARY" || exit 1
pg_create_db "$PRIMARY" authd || exit 1
STANDBY=$(pg_cluster_standby "$PRIMARY") || exit 1
at_exit pg_cluster_remove "$STANDBY"
pg_cluster_start "$STANDBY" || exit 1

step "the standby streams from the primary"
for ((i = 0; i < 100; i++)); do
  state=$(pg_psql "$PRIMARY" postgres -At -c "SELECT state FROM pg_stat_replication" 2>/dev/null)
  [[ $state == streaming ]] && break
  sleep 0.1
done
expect_eq "replication state" streaming "$state"
pg_psql "$PRIMARY" postgres -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
expect_eq "standby is in recovery" t "$(pg_psql "$STANDBY" postgres -At -c 'SELECT pg_is_in_recovery()')"

export AUTHD_STORE=postgresql
AUTHD_DATABASE_URL="host=127.0.0.1,127.0.0.1 port=$(pg_cluster_port "$PRIMARY"),$(pg_cluster_port "$STANDBY") user=authd dbname=authd target_session_attrs=read-write"
AUTHD_SIGNING_KEY=$(pg_signing_key)
export AUTHD_DATABASE_URL AUTHD_SIGNING_KEY
export AUTHD_ARGON2_MEMORY_KIB=4096 AUTHD_ARGON2_ITERATIONS=1
export AUTHD_DATABASE_CONNECT_TIMEOUT_MS=2000
if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
  pg_pgbouncer_start "$PRIMARY" || exit 1
  export AUTHD_DATABASE_LISTEN_URL=$AUTHD_DATABASE_URL
  AUTHD_DATABASE_URL="host=127.0.0.1 port=$PGBOUNCER_PORT user=authd dbname=authd"
  echo "authd reaches PostgreSQL through pgbouncer (transaction mode) on port $PGBOUNCER_PORT"
fi
pg_node_start a || exit 1
A=${NODE_URL[a]}

LOG=$(mktemp -d)
at_exit rm -rf "$LOG"
signup_loop() { # PREFIX SECONDS
  local prefix=$1 end=$((SECONDS + $2)) n=0 code
  while ((SECONDS < end)); do
    n=$((n + 1))
    code=$(curl --silent --noproxy '*' --max-time 20 -o "$LOG/$prefix$n.body" -w '%{http_code}' -X POST "$A/signup" \
      -H 'Content-Type: application/json' \
      --data-binary "{\"username\":\"$prefix$n\",\"password\":\"failover-password-$n\",\"fullname\":\"F\",\"email\":\"f@example.com\"}")
    echo "$prefix$n $code $SECONDS" >>"$LOG/$prefix.log"
  done
}

step "promote the standby and stop the old primary while clients sign up"
signup_loop c 12 &
LOOP1=$!
signup_loop d 12 &
LOOP2=$!
sleep 3
SWITCH=$SECONDS
pg_cluster_promote "$STANDBY"
expect_eq "pg_ctl promote" 0 "$?"
pg_cluster_stop "$PRIMARY" fast
expect_eq "old primary stopped" 0 "$?"
if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
  pg_pgbouncer_point "$STANDBY"
  expect_eq "pgbouncer pointed at the new primary" 0 "$?"
fi
wait "$LOOP1" "$LOOP2"

cat "$LOG"/c.log "$LOG"/d.log >"$LOG/all"
acked=$(awk '$2 == 201 { print $1 }' "$LOG/all" | sort)
n_acked=$(grep -c . <<<"$acked")
after=$(awk -v t="$SWITCH" '$2 == 201 && $3 > t + 1' "$LOG/all" | wc -l)
echo "sign-ups: $(wc -l <"$LOG/all") sent, $n_acked acknowledged, $after of them after the switch"
expect_ne "sign-ups were acknowledged before the switch" 0 "$n_acked"
expect_ne "authd carried on against the new primary" 0 "$after"
expect_eq "no answer but 201 or 503" "" "$(awk '$2 != 201 && $2 != 503' "$LOG/all")"
expect_eq "the new primary is out of recovery" f "$(pg_psql "$STANDBY" postgres -At -c 'SELECT pg_is_in_recovery()')"
stored=$(pg_psql "$STANDBY" authd -At -c "SELECT username FROM users ORDER BY 1")
expect_eq "every acknowledged sign-up is on the new primary" "" "$(comm -23 <(sort <<<"$acked") <(sort <<<"$stored"))"

step "after the failover"
u=$(head -n1 <<<"$acked")
http POST "$A/signin" -H "Authorization: Basic $(printf '%s:failover-password-%s' "$u" "${u#?}" | base64 -w0)"
expect_status 200 "an account made before the switch signs in"
http POST "$A/signup" -H 'Content-Type: application/json' \
  --data-binary '{"username":"afterwards","password":"afterwards-password","fullname":"A","email":"a@example.com"}'
expect_status 201 "a new sign-up"

if [[ ${PG_NODES_PGBOUNCER:-0} == 1 ]]; then
  step "all of it went through pgbouncer in transaction mode"
  expect_eq "pgbouncer's pool_mode" transaction "$(pg_pgbouncer_show CONFIG | awk -F'|' '$1 == "pool_mode" { print $2 }')"
  expect_eq "pgbouncer's database authd is the new primary" "$(pg_cluster_port "$STANDBY")" \
    "$(pg_pgbouncer_show DATABASES | awk -F'|' '$1 == "authd" { print $3 }')"
  xacts=$(pg_pgbouncer_show STATS | awk -F'|' '$1 == "authd" { print $2 }')
  expect_match "pgbouncer carried authd's transactions ($xacts)" '^[0-9]{2,}$' "$xacts"
fi

finish
