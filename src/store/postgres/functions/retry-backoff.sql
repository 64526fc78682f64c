-- R4: when a retried event may run again: its last claim plus
-- min(base * 2^(attempts-1), max), exact, no jitter. float8 holds every
-- product up to 2^53 exactly, and anything larger is above max anyway.
CREATE OR REPLACE FUNCTION vigil_retry_ready_at(p_last_claim_at bigint, p_attempts integer, p_base bigint, p_max bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT p_last_claim_at + LEAST(p_base::float8 * 2::float8 ^ LEAST(p_attempts - 1, 40), p_max::float8)::bigint $$;
