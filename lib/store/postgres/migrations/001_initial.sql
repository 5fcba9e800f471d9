-- authd schema, version 1: users, third-party links, records and small
-- expiring entries. Text keys compare byte-wise (COLLATE "C"), as LMDB does,
-- so "username order" and "_id order" mean the same on both stores.

CREATE TABLE users (
  username      text COLLATE "C" PRIMARY KEY,
  id            text NOT NULL,
  password_hash text NOT NULL,
  fullname      text NOT NULL,
  email         text NOT NULL,
  role          text NOT NULL CHECK (role IN ('user', 'writer', 'editor', 'admin')),
  version       bigint NOT NULL,
  created_at    bigint NOT NULL,
  updated_at    bigint NOT NULL,
  links         text[] NOT NULL DEFAULT '{}'
);

-- "provider:subject" -> username. No foreign key: the store keeps plain data,
-- the accounts module decides what a link to a missing user means.
CREATE TABLE links (
  link     text COLLATE "C" PRIMARY KEY,
  username text COLLATE "C" NOT NULL
);

-- Records: the JSON object text exactly as the service wrote it.
CREATE TABLE records (
  id   text COLLATE "C" PRIMARY KEY,
  body text NOT NULL
);

-- Small entries in named namespaces (sign-in counters, revoked tokens, ...).
CREATE TABLE entries (
  ns         text COLLATE "C" NOT NULL,
  key        bytea NOT NULL,
  value      bytea NOT NULL,
  expires_at bigint NOT NULL DEFAULT 0,  -- Unix seconds, 0 = never
  PRIMARY KEY (ns, key)
);
CREATE INDEX entries_expiry ON entries (expires_at) WHERE expires_at > 0;

-- Every change to a user is announced on channel authd_users with the
-- username as payload ('' = forget every user), whoever made it: authd on any
-- node, authctl, or SQL by hand. Each authd process LISTENs and evicts the
-- user from its cache. NOTIFY is sent at commit, and only if it commits.
CREATE FUNCTION authd_notify_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('authd_users', '');
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM pg_notify('authd_users', CASE WHEN octet_length(OLD.username) < 7000 THEN OLD.username ELSE '' END);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM pg_notify('authd_users', CASE WHEN octet_length(NEW.username) < 7000 THEN NEW.username ELSE '' END);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER users_notify AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION authd_notify_user();
CREATE TRIGGER users_notify_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION authd_notify_user();
