-- R13: the database's clock in integer milliseconds.
CREATE OR REPLACE FUNCTION vigil_clock_ms() RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL SAFE
AS $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;
