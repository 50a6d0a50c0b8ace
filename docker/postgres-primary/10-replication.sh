#!/bin/sh
# Lets postgres-replica (the `scale` profile of docker-compose.yml) stream from this server: a
# replication role and a pg_hba.conf line admitting it, by password, from any address. The role's
# name and password are postgres-replica's REPLICATION_USER and REPLICATION_PASSWORD.
#
# The image runs this once, when it initialises an empty data directory. It can be run again
# (it changes nothing the second time), e.g. on a volume created before it existed:
#   docker compose exec -u postgres postgres sh /docker-entrypoint-initdb.d/10-replication.sh
# No `set -e` or `exit`: the image may source this file rather than run it.

psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres <<'SQL'
SELECT 'CREATE ROLE replicator WITH LOGIN REPLICATION PASSWORD ''replicator'''
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'replicator')
\gexec
SQL

if ! grep -qE '^host[[:space:]]+replication[[:space:]]+replicator[[:space:]]' "$PGDATA/pg_hba.conf"; then
  echo 'host replication replicator all scram-sha-256' >>"$PGDATA/pg_hba.conf"
fi
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -c 'SELECT pg_reload_conf()' >/dev/null
