-- authd schema, version 2: the token lifecycle (lib/include/authd/revocation.hpp).
-- token_generation: tokens carry it as `gen`; +1 ends every token of the user.
-- last_revocation: Unix time of the latest single-token sign-out (0 = never).
-- Existing rows get 0, which is what the LMDB store's older records decode to.
ALTER TABLE users
  ADD COLUMN token_generation bigint NOT NULL DEFAULT 0,
  ADD COLUMN last_revocation  bigint NOT NULL DEFAULT 0;
