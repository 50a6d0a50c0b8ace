#!/bin/sh
# Entrypoint of postgres-replica (the `scale` profile of docker-compose.yml): a streaming read
# replica of the `postgres` service. With an empty data directory it first copies the primary
# with pg_basebackup; -R writes standby.signal and primary_conninfo, so postgres then starts as a
# hot standby that streams from the primary. Later starts go straight to postgres, which resumes
# streaming where it stopped. The arguments are the postgres command line (the service's command).
set -eu
: "${PGDATA:?}" "${REPLICATION_USER:?}" "${REPLICATION_PASSWORD:?}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # The copy is made beside the data directory (PGDATA is a folder of the volume, not the volume
  # itself) and moved into place once complete: a copy cut short is never taken for a database.
  partial="$PGDATA.partial"
  echo "postgres-replica: copying the primary (postgres:5432) with pg_basebackup"
  tries=0
  # The primary may report healthy before it takes connections over the network or has run its
  # init scripts (its first start): try again for a minute.
  until
    rm -rf "$partial"
    PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h postgres -p 5432 -U "$REPLICATION_USER" \
      -D "$partial" -R -X stream --checkpoint=fast
  do
    tries=$((tries + 1))
    if [ "$tries" -ge 30 ]; then
      echo "postgres-replica: pg_basebackup failed $tries times; giving up" >&2
      exit 1
    fi
    sleep 2
  done
  chown -R postgres:postgres "$partial"
  chmod 700 "$partial"
  # An empty data directory left by an earlier start goes; a non-empty one stops the start here.
  if [ -d "$PGDATA" ]; then rmdir "$PGDATA"; fi
  mv "$partial" "$PGDATA"
  echo "postgres-replica: copy complete; starting as a standby"
fi

# The image's own entrypoint: it finds a database in PGDATA, so it skips initialisation, and runs
# postgres as the postgres user.
exec docker-entrypoint.sh "$@"
