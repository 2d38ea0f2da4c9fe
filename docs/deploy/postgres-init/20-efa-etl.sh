#!/bin/sh
# Runs once, when the postgis/postgis container initialises an empty data directory (after the
# image's own 10_postgis.sh). It does what docs/operations/database.md, "Privileges", asks of a superuser:
# a login role for the ETL that owns database efa, with PostGIS installed there. efa-sync then
# connects as efa_etl, never as the superuser, and owns everything it creates in schema efa.
set -eu
: "${EFA_ETL_PASSWORD:?set EFA_ETL_PASSWORD for the efa_etl role}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v etl_password="$EFA_ETL_PASSWORD" <<'SQL'
CREATE ROLE efa_etl LOGIN PASSWORD :'etl_password';
CREATE DATABASE efa OWNER efa_etl;
\connect efa
CREATE EXTENSION IF NOT EXISTS postgis;
SQL
