# shellcheck shell=bash source-path=SCRIPTDIR
# test/blackbox/postgres.sh - the black-box suite on the PostgreSQL store.
#
# harness.sh sources this file when AUTHD_STORE=postgresql. It gives the test
# a fresh database of its own and points authd and authctl at it:
#   AUTHD_STORE=postgresql, AUTHD_DATABASE_URL=<that database>
# The database lives in the cluster of this CTest run (fixture
# postgresql_cluster: test/postgres/cluster.sh, named by
# $TEST_PG_STATE); a test run by hand without it starts a throw-away
# cluster of its own. The database (and such a cluster) is removed when the
# test exits, after the stack has stopped (KEEP_STATE=1 keeps both).
#
# Exports PG_BB_CLUSTER (the cluster's directory, for test/postgres/cluster.sh
# functions such as pg_psql) and PG_BB_DB (the database's name).

# shellcheck source=../postgres/cluster.sh
source "$_HARNESS_DIR/../postgres/cluster.sh"

PG_BB_CLUSTER=
PG_BB_DB=
_PG_BB_OWN_CLUSTER=0
_PG_BB_MORE_DBS=()

_pg_bb_teardown() {
  if [[ ${KEEP_STATE:-0} == 1 ]]; then
    echo "postgres.sh: database $PG_BB_DB kept in cluster $PG_BB_CLUSTER"
    return 0
  fi
  if ((_PG_BB_OWN_CLUSTER)); then
    pg_cluster_remove "$PG_BB_CLUSTER"
  elif [[ -n $PG_BB_DB ]]; then
    local db
    for db in "$PG_BB_DB" "${_PG_BB_MORE_DBS[@]}"; do
      pg_psql "$PG_BB_CLUSTER" postgres -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
    done
  fi
}

_pg_bb_setup() {
  if [[ -n ${TEST_PG_STATE:-} && -f $TEST_PG_STATE ]]; then
    # shellcheck disable=SC1090
    PG_BB_CLUSTER=$(. "$TEST_PG_STATE" && echo "$PG_TEST_DIR")
  else
    PG_BB_CLUSTER=$(pg_cluster_new) || _harness_die "cannot create a PostgreSQL cluster"
    _PG_BB_OWN_CLUSTER=1
    pg_cluster_start "$PG_BB_CLUSTER" || { pg_cluster_remove "$PG_BB_CLUSTER"; _harness_die "PostgreSQL did not start"; }
  fi
  local name
  name=$(basename "$0" .sh)
  PG_BB_DB="bb_${name//[^a-zA-Z0-9_]/_}_$$_$RANDOM"
  PG_BB_DB=${PG_BB_DB:0:63}
  at_exit _pg_bb_teardown
  pg_create_db "$PG_BB_CLUSTER" "$PG_BB_DB" || _harness_die "cannot create database $PG_BB_DB"
  AUTHD_STORE=postgresql
  AUTHD_DATABASE_URL=$(pg_url "$PG_BB_CLUSTER" "$PG_BB_DB")
  export AUTHD_STORE AUTHD_DATABASE_URL PG_BB_CLUSTER PG_BB_DB
}

# A second, empty database of the same cluster (a "fresh store" for tests
# that move data from one store to another); AUTHD_DATABASE_URL points at it.
pg_bb_fresh_database() {
  local db="${PG_BB_DB:0:56}_${#_PG_BB_MORE_DBS[@]}"
  pg_create_db "$PG_BB_CLUSTER" "$db" || _harness_die "cannot create database $db"
  _PG_BB_MORE_DBS+=("$db")
  AUTHD_DATABASE_URL=$(pg_url "$PG_BB_CLUSTER" "$db")
  export AUTHD_DATABASE_URL
}

_pg_bb_setup
