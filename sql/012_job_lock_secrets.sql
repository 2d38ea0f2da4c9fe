-- efa-sync schema, version 12: job locks a reader cannot take.
-- A run of a job holds a PostgreSQL advisory lock for its whole length, so a second run of the job
-- exits 4. Advisory locks have no privileges: any role, an analyst's grant-reader role too, may take
-- any key, and could block a job by taking its key first. The key is therefore derived from a
-- per-job secret that only the ETL role can read, kept outside schema efa (whose tables readers may
-- SELECT, now and in future), and replaced whenever a run lets the lock go, so a key seen in
-- pg_locks during a run is worthless afterwards (src/db/lock.ts).
CREATE SCHEMA IF NOT EXISTS efa_private;
REVOKE ALL ON SCHEMA efa_private FROM PUBLIC;
COMMENT ON SCHEMA efa_private IS 'efa-sync: what only the ETL role may read (the secrets job lock keys are derived from); never grant it to a reader';

CREATE TABLE efa_private.job_lock_secrets (
  job_name text PRIMARY KEY,
  secret text NOT NULL,
  rotated_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON efa_private.job_lock_secrets FROM PUBLIC;
COMMENT ON TABLE efa_private.job_lock_secrets IS 'Per job: the secret its advisory lock key is derived from (sha256 of job and secret); replaced each time a run releases the lock';
COMMENT ON COLUMN efa_private.job_lock_secrets.job_name IS 'The job (efa.runs.job_name)';
COMMENT ON COLUMN efa_private.job_lock_secrets.secret IS 'Random, 32 bytes base64url; only the ETL role can read it';
COMMENT ON COLUMN efa_private.job_lock_secrets.rotated_at IS 'When a run last released the lock and replaced the secret';
