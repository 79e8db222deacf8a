-- Passkeys (contract-webauthn W-3). A webauthn login method is a row of `users` with recipe 'webauthn' and an
-- email, unique per tenant among webauthn login methods as an email-password email is; its credentials, the
-- options (challenges) handed out for a ceremony, and account-recovery tokens have their own tables.
ALTER TABLE users DROP CONSTRAINT users__recipe_id_check;
ALTER TABLE users ADD CONSTRAINT users__recipe_id_check
  CHECK (recipe_id IN ('emailpassword', 'passwordless', 'thirdparty', 'webauthn'));
ALTER TABLE users ADD CONSTRAINT users__webauthn_fields_check CHECK (recipe_id <> 'webauthn' OR email IS NOT NULL);
CREATE UNIQUE INDEX users__webauthn_email_key ON users (tenant_id, email) WHERE recipe_id = 'webauthn';

-- A passkey works only under the RP ID it was made for, so (rp_id, credential_id) is the key. credential_id is the
-- base64url text of the raw id, as the browser sends it; public_key the COSE_Key bytes. A counter of 0 is what
-- synced passkeys send and what an import without one stores: it is never checked for a clone.
CREATE TABLE webauthn_credentials (
  rp_id           text    NOT NULL,
  credential_id   text    NOT NULL,
  user_id         text    NOT NULL,
  public_key      bytea   NOT NULL,
  counter         bigint  NOT NULL DEFAULT 0,
  transports      text[]  NOT NULL DEFAULT '{}',
  aaguid          uuid,
  user_handle     text,
  backup_eligible boolean NOT NULL DEFAULT false,
  backed_up       boolean NOT NULL DEFAULT false,
  created_at      bigint  NOT NULL,
  last_used_at    bigint,
  CONSTRAINT webauthn_credentials__pkey PRIMARY KEY (rp_id, credential_id),
  CONSTRAINT webauthn_credentials__counter_check CHECK (counter >= 0),
  CONSTRAINT webauthn_credentials__credential_id_length_check CHECK (char_length(credential_id) <= 1364),
  CONSTRAINT webauthn_credentials__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
CREATE INDEX webauthn_credentials__user_id_idx ON webauthn_credentials (user_id);
CREATE INDEX webauthn_credentials__credential_id_idx ON webauthn_credentials (credential_id);

-- Options are spent by the ceremony they were made for: uses_left counts the verifications still allowed (one
-- from cdi 5.5, two below it, where the SDK verifies one assertion twice). verified_counter is the signature
-- counter the last verification under these options stored, so that the second verification of the same
-- assertion is not taken for a cloned authenticator.
CREATE TABLE webauthn_options (
  id                      text     NOT NULL,
  tenant_id               text     NOT NULL,
  challenge               text     NOT NULL,
  email                   text,
  rp_id                   text     NOT NULL,
  rp_name                 text     NOT NULL,
  origin                  text     NOT NULL,
  timeout                 bigint   NOT NULL,
  user_verification       text     NOT NULL,
  user_presence           boolean  NOT NULL,
  supported_algorithm_ids integer[] NOT NULL,
  created_at              bigint   NOT NULL,
  expires_at              bigint   NOT NULL,
  uses_left               integer  NOT NULL,
  verified_counter        bigint,
  CONSTRAINT webauthn_options__pkey PRIMARY KEY (id),
  CONSTRAINT webauthn_options__uses_left_check CHECK (uses_left >= 0)
);
CREATE INDEX webauthn_options__expires_at_idx ON webauthn_options (expires_at);

-- Recovery tokens are stored as SHA-256 digests. user_id is the internal id the token was made for (a login method
-- or a retained group id, so no foreign key): users/remove-user.ts deletes them with the user.
CREATE TABLE webauthn_recover_tokens (
  token_hash bytea  NOT NULL,
  tenant_id  text   NOT NULL,
  user_id    text   NOT NULL,
  email      text   NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT webauthn_recover_tokens__pkey PRIMARY KEY (token_hash),
  CONSTRAINT webauthn_recover_tokens__token_hash_check CHECK (octet_length(token_hash) = 32)
);
CREATE INDEX webauthn_recover_tokens__user_id_idx ON webauthn_recover_tokens (user_id);
