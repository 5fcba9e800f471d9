-- authd schema, version 3: every change to a record is announced on channel
-- authd_records (no payload: the processes cache the whole list, see
-- records_cache.hpp), whoever made it. NOTIFY is sent at commit, and only if
-- it commits; PostgreSQL folds identical notifications of one transaction.
CREATE FUNCTION authd_notify_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('authd_records', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER records_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON records
  FOR EACH STATEMENT EXECUTE FUNCTION authd_notify_records();
