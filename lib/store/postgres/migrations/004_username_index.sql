-- authd schema, version 4: the canonical-username index (lib/accounts/
-- username_index.hpp) for users stored before it existed, built here so that
-- it is complete whenever the database is, even if no authd could reach the
-- database at its start. Usernames are ASCII (is_username_char), so lower()
-- is the canonical form; two names with one form (possible before the index):
-- the first in byte order keeps it, as the C++ builder does.
INSERT INTO entries (ns, key, value, expires_at)
SELECT DISTINCT ON (lower(username)) 'username', convert_to(lower(username), 'UTF8'), convert_to(username, 'UTF8'), 0
  FROM users
 ORDER BY lower(username), username
    ON CONFLICT (ns, key) DO NOTHING;
INSERT INTO entries (ns, key, value, expires_at)
VALUES ('username', convert_to('#built', 'UTF8'), convert_to('1', 'UTF8'), 0)
    ON CONFLICT (ns, key) DO NOTHING;
