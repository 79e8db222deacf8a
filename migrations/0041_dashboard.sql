-- Dashboard users and their sessions (contract-multitenancy T-2, T-4). App-wide: no tenant. A password is stored
-- only as a hash of the configured password_hashing_alg; a session only as the SHA-256 digest of the id handed out
-- once at sign-in, with the time it stops being valid (the periodic session sweep deletes it after that).
CREATE TABLE dashboard_users (
  user_id       uuid   NOT NULL,
  email         text   NOT NULL,
  password_hash text   NOT NULL,
  time_joined   bigint NOT NULL,
  CONSTRAINT dashboard_users__pkey PRIMARY KEY (user_id),
  CONSTRAINT dashboard_users__email_key UNIQUE (email),
  CONSTRAINT dashboard_users__email_length_check CHECK (char_length(email) <= 256)
);

CREATE TABLE dashboard_sessions (
  session_id_hash bytea  NOT NULL,
  user_id         uuid   NOT NULL,
  time_created    bigint NOT NULL,
  expiry          bigint NOT NULL,
  CONSTRAINT dashboard_sessions__pkey PRIMARY KEY (session_id_hash),
  CONSTRAINT dashboard_sessions__session_id_hash_length_check CHECK (octet_length(session_id_hash) = 32),
  CONSTRAINT dashboard_sessions__user_id_fkey FOREIGN KEY (user_id) REFERENCES dashboard_users (user_id) ON DELETE CASCADE
);
CREATE INDEX dashboard_sessions__user_id_idx ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions__expiry_idx ON dashboard_sessions (expiry);
