-- authd schema, version 5: verified email (issue 24, docs/mail.md).
-- email_verified: the account's address was confirmed through a mailed link.
-- Existing rows are unverified, as the LMDB store's older records decode.
-- (IF NOT EXISTS: another feature may add the same column first.)
ALTER TABLE users
  ADD COLUMN IF NOT EXISTS email_verified boolean NOT NULL DEFAULT false;
