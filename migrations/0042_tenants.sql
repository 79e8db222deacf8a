-- Tenants as configuration (contract-multitenancy T-2). `public` always exists; other tenants are created and
-- removed through /recipe/multitenancy/tenant/v2 and /recipe/multitenancy/tenant/remove. `position` keeps the
-- creation order the tenant list answers in. first_factors NULL = unset (the SDK then uses its recipe list);
-- core_config holds only the tenant's overrides of the per-tenant settings.
CREATE TABLE tenants (
  tenant_id                  text   NOT NULL,
  position                   bigint GENERATED ALWAYS AS IDENTITY,
  created_at                 bigint NOT NULL,
  first_factors              text[],
  required_secondary_factors text[],
  core_config                jsonb  NOT NULL DEFAULT '{}',
  CONSTRAINT tenants__pkey PRIMARY KEY (tenant_id),
  CONSTRAINT tenants__tenant_id_check CHECK (tenant_id ~ '^[a-z0-9-]{1,64}$'),
  CONSTRAINT tenants__core_config_check CHECK (jsonb_typeof(core_config) = 'object')
);
INSERT INTO tenants (tenant_id, created_at) VALUES ('public', 0);

-- A tenant's third-party providers, one JSON object each in the order they were first written. Client secrets and
-- additionalConfig are not in `provider`: they are sealed together in `secrets` (AES-256-GCM under the key named
-- by `secrets_key_id`, one of totp_secret_keys), NULL when the provider has none.
CREATE TABLE tenant_thirdparty_providers (
  tenant_id      text    NOT NULL,
  third_party_id text    NOT NULL,
  position       integer NOT NULL,
  provider       jsonb   NOT NULL,
  secrets        text,
  secrets_key_id text,
  CONSTRAINT tenant_thirdparty_providers__pkey PRIMARY KEY (tenant_id, third_party_id),
  CONSTRAINT tenant_thirdparty_providers__tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (tenant_id) ON DELETE CASCADE,
  CONSTRAINT tenant_thirdparty_providers__third_party_id_check CHECK (char_length(third_party_id) BETWEEN 1 AND 28),
  CONSTRAINT tenant_thirdparty_providers__secrets_check CHECK ((secrets IS NULL) = (secrets_key_id IS NULL))
);
