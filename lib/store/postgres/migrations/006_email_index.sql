-- authd schema, version 6: the accounts of an address without reading every
-- user (POST /password/forgot {"email"}: StoreTxn::list_users with
-- UserQuery::email). lower() under the "C" collation folds ASCII letters
-- only, whatever the database's locale: the comparison of the LMDB store and
-- text::iequals. Building it reads the users table once; user writes (not
-- reads) wait meanwhile.
CREATE INDEX IF NOT EXISTS users_email_lower ON users (lower(email COLLATE "C"));
