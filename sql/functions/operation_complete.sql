-- after:
-- Whether every unit of an operation in this run was fetched and trusted.
CREATE OR REPLACE FUNCTION efa.operation_complete(p_run bigint, p_operation text)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM efa.run_tiles WHERE run_id = p_run AND operation = p_operation AND status = 'done')
     AND NOT EXISTS (SELECT 1 FROM efa.run_tiles WHERE run_id = p_run AND operation = p_operation AND status <> 'done')
$$;
