-- The whole data model of the contract in one place.
-- A user has exactly one login method here (no account linking), so a user and its login method share one
-- row of `users`; the per-recipe uniqueness rules are partial unique indexes on that row. Everything that
-- belongs to a user references users(user_id) ON DELETE CASCADE, so removing a user is one DELETE.
-- Times are milliseconds since the epoch, as on the wire.

CREATE TABLE users (
  user_id             text    NOT NULL,
  tenant_id           text    NOT NULL DEFAULT 'public',
  recipe_id           text    NOT NULL,
  time_joined         bigint  NOT NULL,
  email               text,
  phone_number        text,
  third_party_id      text,
  third_party_user_id text,
  password_hash       text,
  CONSTRAINT users__pkey PRIMARY KEY (user_id),
  CONSTRAINT users__recipe_id_check CHECK (recipe_id IN ('emailpassword', 'passwordless', 'thirdparty')),
  CONSTRAINT users__emailpassword_fields_check CHECK (
    recipe_id <> 'emailpassword' OR (email IS NOT NULL AND password_hash IS NOT NULL)),
  CONSTRAINT users__passwordless_fields_check CHECK (
    recipe_id <> 'passwordless' OR email IS NOT NULL OR phone_number IS NOT NULL),
  CONSTRAINT users__thirdparty_fields_check CHECK (
    recipe_id <> 'thirdparty' OR (email IS NOT NULL AND third_party_id IS NOT NULL AND third_party_user_id IS NOT NULL)),
  -- Column limits of the reference core (thirdPartyId 28, thirdPartyUserId 256, email 256).
  CONSTRAINT users__third_party_id_length_check CHECK (char_length(third_party_id) <= 28),
  CONSTRAINT users__third_party_user_id_length_check CHECK (char_length(third_party_user_id) <= 256),
  CONSTRAINT users__email_length_check CHECK (char_length(email) <= 256)
);

CREATE UNIQUE INDEX users__emailpassword_email_key ON users (tenant_id, email) WHERE recipe_id = 'emailpassword';
CREATE UNIQUE INDEX users__passwordless_email_key ON users (tenant_id, email) WHERE recipe_id = 'passwordless';
CREATE UNIQUE INDEX users__passwordless_phone_number_key ON users (tenant_id, phone_number) WHERE recipe_id = 'passwordless';
CREATE UNIQUE INDEX users__thirdparty_key ON users (tenant_id, third_party_id, third_party_user_id) WHERE recipe_id = 'thirdparty';
-- Third-party emails are not unique but are looked up (users by email, by account info).
CREATE INDEX users__email_idx ON users (tenant_id, email);
-- Keyset pagination orders by time_joined either way with ties broken by user_id descending.
CREATE INDEX users__time_joined_asc_idx ON users (time_joined ASC, user_id DESC);
CREATE INDEX users__time_joined_desc_idx ON users (time_joined DESC, user_id DESC);

CREATE TABLE user_id_mappings (
  user_id               text NOT NULL,
  external_user_id      text NOT NULL,
  external_user_id_info text,
  CONSTRAINT user_id_mappings__pkey PRIMARY KEY (user_id),
  CONSTRAINT user_id_mappings__external_user_id_key UNIQUE (external_user_id),
  CONSTRAINT user_id_mappings__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);

CREATE TABLE email_verifications (
  user_id text NOT NULL,
  email   text NOT NULL,
  CONSTRAINT email_verifications__pkey PRIMARY KEY (user_id, email),
  CONSTRAINT email_verifications__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);

CREATE TABLE user_metadata (
  user_id  text  NOT NULL,
  metadata jsonb NOT NULL,
  CONSTRAINT user_metadata__pkey PRIMARY KEY (user_id),
  CONSTRAINT user_metadata__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);

CREATE TABLE roles (
  role text NOT NULL,
  CONSTRAINT roles__pkey PRIMARY KEY (role)
);

CREATE TABLE user_roles (
  user_id   text NOT NULL,
  tenant_id text NOT NULL,
  role      text NOT NULL,
  CONSTRAINT user_roles__pkey PRIMARY KEY (user_id, tenant_id, role),
  CONSTRAINT user_roles__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE,
  CONSTRAINT user_roles__role_fkey FOREIGN KEY (role) REFERENCES roles (role) ON DELETE CASCADE
);

-- Devices and codes are keyed by contact, not by user: they exist before the user does.
CREATE TABLE passwordless_devices (
  tenant_id       text    NOT NULL,
  device_id_hash  text    NOT NULL,
  email           text,
  phone_number    text,
  link_code_salt  text    NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0,
  created_at      bigint  NOT NULL,
  CONSTRAINT passwordless_devices__pkey PRIMARY KEY (tenant_id, device_id_hash),
  CONSTRAINT passwordless_devices__contact_check CHECK ((email IS NULL) <> (phone_number IS NULL))
);
CREATE INDEX passwordless_devices__email_idx ON passwordless_devices (tenant_id, email);
CREATE INDEX passwordless_devices__phone_number_idx ON passwordless_devices (tenant_id, phone_number);

CREATE TABLE passwordless_codes (
  tenant_id      text   NOT NULL,
  code_id        text   NOT NULL,
  device_id_hash text   NOT NULL,
  link_code_hash text   NOT NULL,
  created_at     bigint NOT NULL,
  CONSTRAINT passwordless_codes__pkey PRIMARY KEY (tenant_id, code_id),
  CONSTRAINT passwordless_codes__link_code_hash_key UNIQUE (tenant_id, link_code_hash),
  CONSTRAINT passwordless_codes__device_fkey FOREIGN KEY (tenant_id, device_id_hash)
    REFERENCES passwordless_devices (tenant_id, device_id_hash) ON DELETE CASCADE
);
CREATE INDEX passwordless_codes__device_idx ON passwordless_codes (tenant_id, device_id_hash, created_at);

-- Bulk-import queue: a row is deleted once its user is imported; FAILED rows keep the reason.
CREATE TABLE bulk_import_users (
  id              text   NOT NULL,
  status          text   NOT NULL DEFAULT 'NEW',
  raw_data        jsonb  NOT NULL,
  primary_user_id text,
  error_message   text,
  created_at      bigint NOT NULL,
  updated_at      bigint NOT NULL,
  CONSTRAINT bulk_import_users__pkey PRIMARY KEY (id),
  CONSTRAINT bulk_import_users__status_check CHECK (status IN ('NEW', 'PROCESSING', 'FAILED'))
);
CREATE INDEX bulk_import_users__created_at_idx ON bulk_import_users (created_at DESC, id DESC);
CREATE INDEX bulk_import_users__status_created_at_idx ON bulk_import_users (status, created_at DESC, id DESC);
