-- Sessions (the Session recipe) and the keys that sign their access tokens, so that an app on the official SDK can
-- sign its users in against this core. Every core on one database shares these rows: a key made by one core signs
-- and verifies on all of them, and a session created on one is refreshed on another.
--
-- session_info keeps one row per session. Refresh and access tokens are never stored: refresh_token_hash_2 is
-- sha256(sha256(refresh token)) of the current refresh token and prev_refresh_token_hash_2 the one it replaced, so a
-- copy of the table lets nobody refresh. user_id is the recipe user id in the form the session was created with
-- (external if mapped); the primary id is derived on read, so linking shows at the next refresh. Sessions are not
-- tied to users by a foreign key: the reference core accepts a session for any id, and POST /user/remove deletes the
-- sessions of the login methods it removes.
CREATE TABLE session_info (
  tenant_id                 text    NOT NULL DEFAULT 'public',
  session_handle            text    NOT NULL,
  user_id                   text    NOT NULL,
  refresh_token_hash_2      text    NOT NULL,
  prev_refresh_token_hash_2 text,
  refresh_token_rotated_at  bigint,
  session_data              text    NOT NULL,
  jwt_user_payload          text    NOT NULL,
  expires_at                bigint  NOT NULL,
  created_at_time           bigint  NOT NULL,
  use_static_key            boolean NOT NULL,
  CONSTRAINT session_info__pkey PRIMARY KEY (tenant_id, session_handle),
  CONSTRAINT session_info__user_id_length_check CHECK (char_length(user_id) <= 128)
);
CREATE INDEX session_info__user_id_idx ON session_info (user_id);
CREATE INDEX session_info__expires_at_idx ON session_info (expires_at);

-- Dynamic access-token signing keys: one row per key, named d-<created_at_time> on the wire. value is the base64
-- X.509 SubjectPublicKeyInfo and the base64 PKCS#8 private key joined by '|'. A new key is added when the newest is
-- about to reach the rotation interval; cores serialise that with an advisory lock so only one adds it.
CREATE TABLE session_access_token_signing_keys (
  created_at_time bigint NOT NULL,
  value           text   NOT NULL,
  CONSTRAINT session_access_token_signing_keys__pkey PRIMARY KEY (created_at_time)
);

-- The static key (s-<uuid>) of access tokens with useDynamicSigningKey false and of POST /recipe/jwt; made once,
-- never rotated. The singleton key of the table keeps it to one row whichever core makes it first.
CREATE TABLE jwt_signing_keys (
  key_id     text    NOT NULL,
  key_string text    NOT NULL,
  algorithm  text    NOT NULL,
  created_at bigint  NOT NULL,
  CONSTRAINT jwt_signing_keys__pkey PRIMARY KEY (key_id),
  CONSTRAINT jwt_signing_keys__algorithm_check CHECK (algorithm = 'RS256'),
  CONSTRAINT jwt_signing_keys__algorithm_key UNIQUE (algorithm)
);

-- Secrets the core makes for itself once per database (the refresh-token encryption key).
CREATE TABLE key_value (
  name            text   NOT NULL,
  value           text   NOT NULL,
  created_at_time bigint NOT NULL,
  CONSTRAINT key_value__pkey PRIMARY KEY (name)
);
