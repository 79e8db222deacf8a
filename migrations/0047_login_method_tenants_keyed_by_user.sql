-- Each membership row a bulk import writes pays for every index on login_method_tenants. The primary key now leads
-- with the user, so it also serves the lookups by user that had an index of their own; the lookups by tenant alone
-- (removing a tenant, listing its members) are served by the (tenant_id, email) index, which leads with the tenant.

ALTER TABLE login_method_tenants DROP CONSTRAINT login_method_tenants__pkey;
ALTER TABLE login_method_tenants ADD CONSTRAINT login_method_tenants__pkey PRIMARY KEY (user_id, tenant_id);
DROP INDEX login_method_tenants__user_id_idx;
