-- The foreign key from login_method_tenants to tenants checked each new membership row on its own: one lookup and
-- one row lock of its tenant per row, 200,000 of them for an import of 200,000 users into one tenant. The check is now
-- made once per statement, by the membership table's insert trigger: it locks the tenants the new rows name, as the
-- key did (FOR KEY SHARE), then refuses the statement if one of them is gone, with the key's name and error code.
-- A tenant being removed either waits for the inserting transaction, whose rows its trigger then removes (the
-- cascade the key did, below), or is removed first and the insert is refused.

ALTER TABLE login_method_tenants DROP CONSTRAINT login_method_tenants__tenant_id_fkey;

CREATE FUNCTION login_method_tenants_after_insert() RETURNS trigger AS $$
BEGIN
  PERFORM 1 FROM tenants t WHERE t.tenant_id IN (SELECT c.tenant_id FROM changed c) FOR KEY SHARE OF t;
  IF EXISTS (SELECT 1 FROM changed c WHERE NOT EXISTS (SELECT 1 FROM tenants t WHERE t.tenant_id = c.tenant_id)) THEN
    RAISE EXCEPTION 'insert or update on table "login_method_tenants" violates foreign key constraint "login_method_tenants__tenant_id_fkey"'
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'login_method_tenants__tenant_id_fkey', TABLE = 'login_method_tenants';
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

-- Named so that it fires before login_method_tenants__after_insert_trigger (same event, names in order): nothing
-- refreshes primary users from rows about to be refused.
CREATE TRIGGER login_method_tenants__after_insert_check_trigger
  AFTER INSERT ON login_method_tenants REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION login_method_tenants_after_insert();

CREATE FUNCTION tenants_after_delete_memberships() RETURNS trigger AS $$
BEGIN
  DELETE FROM login_method_tenants t WHERE t.tenant_id = ANY(ARRAY(SELECT o.tenant_id FROM old_tenants o));
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER tenants__after_delete_memberships_trigger
  AFTER DELETE ON tenants REFERENCING OLD TABLE AS old_tenants
  FOR EACH STATEMENT EXECUTE FUNCTION tenants_after_delete_memberships();
