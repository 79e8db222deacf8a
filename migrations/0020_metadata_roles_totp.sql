-- User metadata, roles and permissions, TOTP devices and recovery codes (contract-metadata-roles-totp M-2..M-7).
-- The SDK reads and writes these under the id it knows a user by, which is the external id when one is mapped
-- (M-2.1); they are opaque keys, never checked against users, so the foreign keys to user_ids go. User removal
-- deletes them explicitly (users/remove-user.ts), under the internal and the external ids alike.
ALTER TABLE user_metadata DROP CONSTRAINT user_metadata__user_id_fkey;
ALTER TABLE user_roles DROP CONSTRAINT user_roles__user_id_fkey;

-- json, not jsonb: the stored text keeps its key order (a replaced key moves last, M-3) and its number lexemes.
ALTER TABLE user_metadata ALTER COLUMN metadata TYPE json USING metadata::json;

-- The shallow merge of M-3: stored keys the update does not name, in their order, then the update's keys in its
-- order, a top-level null deleting the key. One function for the route and for bulk import.
CREATE FUNCTION user_metadata_merge(stored json, patch json) RETURNS json AS $$
  SELECT COALESCE(json_object_agg(m.key, m.value ORDER BY m.part, m.ord), '{}'::json)
    FROM (
      SELECT 1 AS part, s.key, s.value, s.ord FROM json_each(stored) WITH ORDINALITY AS s(key, value, ord)
       WHERE NOT EXISTS (SELECT 1 FROM json_each(patch) AS p(key, value) WHERE p.key = s.key)
      UNION ALL
      SELECT 2, p.key, p.value, p.ord FROM json_each(patch) WITH ORDINALITY AS p(key, value, ord)
       WHERE json_typeof(p.value) <> 'null'
    ) AS m
$$ LANGUAGE sql IMMUTABLE;

-- Roles and permissions are app-wide, listed in creation order (M-2.5).
ALTER TABLE roles ADD COLUMN created_order bigint GENERATED ALWAYS AS IDENTITY;
CREATE TABLE role_permissions (
  role          text   NOT NULL,
  permission    text   NOT NULL,
  created_order bigint GENERATED ALWAYS AS IDENTITY,
  CONSTRAINT role_permissions__pkey PRIMARY KEY (role, permission),
  CONSTRAINT role_permissions__role_fkey FOREIGN KEY (role) REFERENCES roles (role) ON DELETE CASCADE
);
CREATE INDEX role_permissions__permission_idx ON role_permissions (permission);
CREATE INDEX user_roles__role_idx ON user_roles (tenant_id, role);

-- A user's authenticator keys, as canonical upper-case unpadded base32 (M-6). They cannot be hashed (every check
-- needs the key); they are never logged or answered (docs/metadata-roles-totp.md, "Secrets at rest").
CREATE TABLE totp_devices (
  user_id             text    NOT NULL,
  device_name         text    NOT NULL,
  secret_key          text    NOT NULL,
  period              integer NOT NULL,
  skew                integer NOT NULL,
  verified            boolean NOT NULL,
  created_at          bigint  NOT NULL,
  algorithm           text    NOT NULL DEFAULT 'SHA1',
  digits              integer NOT NULL DEFAULT 6,
  last_used_time_step bigint,
  CONSTRAINT totp_devices__pkey PRIMARY KEY (user_id, device_name),
  CONSTRAINT totp_devices__algorithm_check CHECK (algorithm IN ('SHA1', 'SHA256', 'SHA512')),
  CONSTRAINT totp_devices__digits_check CHECK (digits BETWEEN 6 AND 8)
);

-- The ledger of codes tried, per tenant and user (M-5.3): replays and the wrong-code limit read it.
CREATE TABLE totp_used_codes (
  id           bigint  GENERATED ALWAYS AS IDENTITY,
  tenant_id    text    NOT NULL,
  user_id      text    NOT NULL,
  code         text    NOT NULL,
  is_valid     boolean NOT NULL,
  expiry_time  bigint  NOT NULL,
  created_time bigint  NOT NULL,
  CONSTRAINT totp_used_codes__pkey PRIMARY KEY (id)
);
CREATE INDEX totp_used_codes__user_idx ON totp_used_codes (tenant_id, user_id, created_time DESC, id DESC);
CREATE INDEX totp_used_codes__expiry_idx ON totp_used_codes (expiry_time);

-- Recovery codes (M-7): stored as digests, each usable once.
CREATE TABLE recovery_codes (
  id                bigint GENERATED ALWAYS AS IDENTITY,
  user_id           text   NOT NULL,
  hashing_algorithm text   NOT NULL,
  code_hash         text   NOT NULL,
  salt              text,
  used_at           bigint,
  created_at        bigint NOT NULL,
  CONSTRAINT recovery_codes__pkey PRIMARY KEY (id),
  CONSTRAINT recovery_codes__hashing_algorithm_check CHECK (hashing_algorithm IN ('salted-sha256', 'bcrypt', 'sha256', 'sha512'))
);
CREATE INDEX recovery_codes__user_idx ON recovery_codes (user_id);
