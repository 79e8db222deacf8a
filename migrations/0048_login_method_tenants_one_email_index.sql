-- Each membership row a bulk import writes pays for every index on login_method_tenants, and an email-password,
-- passwordless or passkey membership entered two indexes on (tenant_id, email): the lookup index and its recipe's
-- partial unique index. One unique index now does both jobs. Its key ends with the recipe, so an email is unique per
-- tenant and recipe; the last expression is NULL for third-party login methods, which never conflict with each other
-- (NULLs are distinct), as the recipe's uniqueness rule is then its own index on the provider's pair. A NULL email
-- never conflicts either. The key leads with the tenant, so it also serves the lookups by tenant and email, and by
-- tenant alone.

CREATE UNIQUE INDEX login_method_tenants__email_key
  ON login_method_tenants (tenant_id, email, recipe_id, (nullif(recipe_id = 'thirdparty', true)));
DROP INDEX login_method_tenants__email_idx;
DROP INDEX login_method_tenants__emailpassword_email_key;
DROP INDEX login_method_tenants__passwordless_email_key;
DROP INDEX login_method_tenants__webauthn_email_key;
