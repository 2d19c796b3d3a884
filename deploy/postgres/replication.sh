#!/bin/bash
# Run by the postgres image at a new volume's first start (docker-entrypoint-initdb.d): lets
# the service's user connect for replication (db-replica's pg_basebackup and its WAL stream)
# from the compose network, with the password, as the image's own entry does for databases.
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
