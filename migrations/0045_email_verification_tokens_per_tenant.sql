-- Email-verification tokens belong to the tenant they were made in, as in the reference core
-- (contract-multitenancy T-3): a token spends only under its own tenant, a login method leaving a tenant (M8) loses its
-- tokens there, and a removed tenant takes its tokens (foreign key, as every tenant-keyed table). The verified
-- (user, email) pairs of email_verifications stay app-wide. Tokens made before tenants existed were made in public.
ALTER TABLE email_verification_tokens ADD COLUMN tenant_id text NOT NULL DEFAULT 'public';
ALTER TABLE email_verification_tokens ALTER COLUMN tenant_id DROP DEFAULT;
ALTER TABLE email_verification_tokens ADD CONSTRAINT email_verification_tokens__tenant_id_fkey
  FOREIGN KEY (tenant_id) REFERENCES tenants (tenant_id) ON DELETE CASCADE;
-- The tenant removal's cascade finds its tokens without reading the table.
CREATE INDEX email_verification_tokens__tenant_id_idx ON email_verification_tokens (tenant_id);
