-- Account linking: one person may sign in with several login methods and still be one user.
-- A row of `users` is now one login method (its recipe data, unchanged). A user is a group of login methods:
--   user_groups            one row per user: its id (the group id), whether it is a primary user, and its
--                          time_joined (the minimum over its current login methods, kept here as the listing key);
--   user_ids               every id that names a user, with the group it belongs to: each login method's id, and
--                          the group id itself, which outlives its own login method when others remain (the
--                          retained id). Mappings, metadata and roles hang off it, so they follow the id they were
--                          given to and go when their id goes;
--   primary_account_infos  the emails, phone numbers and third-party logins of primary users: its unique key is the
--                          rule that a value belongs to at most one primary user, whatever the path that writes it.
-- Triggers on `users` keep the three in step, so every path that inserts, updates or deletes a login method (the
-- recipes, bulk import, tests) gets groups, time_joined and reservations right without calling anything.
-- The functions keep the schema they were created in (search_path FROM CURRENT), so a statement on `users` from a
-- session with another search_path (an operator's psql, a schema-qualified UPDATE) still finds these tables.
-- Every existing user becomes a standalone login method in a group of its own.

CREATE TABLE user_groups (
  group_id    text    NOT NULL,
  tenant_id   text    NOT NULL DEFAULT 'public',
  is_primary  boolean NOT NULL DEFAULT false,
  time_joined bigint  NOT NULL,
  CONSTRAINT user_groups__pkey PRIMARY KEY (group_id)
);
-- Keyset pagination of users orders by time_joined either way with ties broken by group_id descending.
CREATE INDEX user_groups__time_joined_asc_idx ON user_groups (time_joined ASC, group_id DESC);
CREATE INDEX user_groups__time_joined_desc_idx ON user_groups (time_joined DESC, group_id DESC);

CREATE TABLE user_ids (
  user_id  text NOT NULL,
  group_id text NOT NULL,
  CONSTRAINT user_ids__pkey PRIMARY KEY (user_id),
  CONSTRAINT user_ids__group_id_fkey FOREIGN KEY (group_id) REFERENCES user_groups (group_id) ON DELETE CASCADE
);
CREATE INDEX user_ids__group_id_idx ON user_ids (group_id);

CREATE TABLE primary_account_infos (
  tenant_id  text NOT NULL,
  info_type  text NOT NULL,
  info_value text NOT NULL,
  group_id   text NOT NULL,
  CONSTRAINT primary_account_infos__info_key UNIQUE (tenant_id, info_type, info_value),
  CONSTRAINT primary_account_infos__info_type_check CHECK (info_type IN ('email', 'phone', 'tparty')),
  CONSTRAINT primary_account_infos__group_id_fkey FOREIGN KEY (group_id) REFERENCES user_groups (group_id) ON DELETE CASCADE
);
CREATE INDEX primary_account_infos__group_id_idx ON primary_account_infos (group_id);

INSERT INTO user_groups (group_id, tenant_id, time_joined) SELECT user_id, tenant_id, time_joined FROM users;
INSERT INTO user_ids (user_id, group_id) SELECT user_id, user_id FROM users;

-- Mappings, metadata and roles now attach to any id that names a user, the retained group id included.
ALTER TABLE user_id_mappings DROP CONSTRAINT user_id_mappings__user_id_fkey;
ALTER TABLE user_id_mappings ADD CONSTRAINT user_id_mappings__user_id_fkey
  FOREIGN KEY (user_id) REFERENCES user_ids (user_id) ON DELETE CASCADE;
ALTER TABLE user_metadata DROP CONSTRAINT user_metadata__user_id_fkey;
ALTER TABLE user_metadata ADD CONSTRAINT user_metadata__user_id_fkey
  FOREIGN KEY (user_id) REFERENCES user_ids (user_id) ON DELETE CASCADE;
ALTER TABLE user_roles DROP CONSTRAINT user_roles__user_id_fkey;
ALTER TABLE user_roles ADD CONSTRAINT user_roles__user_id_fkey
  FOREIGN KEY (user_id) REFERENCES user_ids (user_id) ON DELETE CASCADE;
-- email_verifications keeps its key on users: a verification is of one login method's (id, email) pair.

-- The values the login methods of the given primary users hold; the third-party value is
-- '<thirdPartyId>::<thirdPartyUserId>'.
CREATE FUNCTION account_groups_held_infos(groups text[])
  RETURNS TABLE (tenant_id text, info_type text, info_value text, group_id text) AS $$
  SELECT DISTINCT u.tenant_id, v.info_type, v.info_value, g.group_id
    FROM user_groups g
    JOIN user_ids i ON i.group_id = g.group_id
    JOIN users u ON u.user_id = i.user_id
    CROSS JOIN LATERAL (VALUES ('email', u.email), ('phone', u.phone_number),
                               ('tparty', u.third_party_id || '::' || u.third_party_user_id)) AS v(info_type, info_value)
   WHERE g.group_id = ANY(groups) AND g.is_primary AND v.info_value IS NOT NULL
$$ LANGUAGE sql STABLE SET search_path FROM CURRENT;

-- Brings the given groups in line with their login methods: a group left without any goes (with its ids and
-- what hangs off them), time_joined is the minimum over the rest, and a primary user reserves exactly the values
-- its login methods hold. A value another primary user holds fails the statement on primary_account_infos__info_key.
-- Lookups go through `= ANY(array)` so that they stay index probes on tables that were never analyzed.
CREATE FUNCTION account_groups_refresh(groups text[]) RETURNS void AS $$
BEGIN
  DELETE FROM user_groups g
   WHERE g.group_id = ANY(groups)
     AND NOT EXISTS (SELECT 1 FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = g.group_id);

  UPDATE user_groups g SET time_joined = t.time_joined
    FROM (SELECT i.group_id, min(u.time_joined) AS time_joined
            FROM user_ids i JOIN users u ON u.user_id = i.user_id
           WHERE i.group_id = ANY(groups) GROUP BY i.group_id) t
   WHERE g.group_id = t.group_id AND g.time_joined <> t.time_joined;

  DELETE FROM primary_account_infos r
   WHERE r.group_id = ANY(groups)
     AND NOT EXISTS (SELECT 1 FROM account_groups_held_infos(groups) h
                      WHERE (h.tenant_id, h.info_type, h.info_value, h.group_id) = (r.tenant_id, r.info_type, r.info_value, r.group_id));
  INSERT INTO primary_account_infos (tenant_id, info_type, info_value, group_id)
    SELECT h.tenant_id, h.info_type, h.info_value, h.group_id FROM account_groups_held_infos(groups) h
     WHERE NOT EXISTS (SELECT 1 FROM primary_account_infos r
                        WHERE (r.tenant_id, r.info_type, r.info_value, r.group_id) = (h.tenant_id, h.info_type, h.info_value, h.group_id));
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

-- A login method inserted without a user_ids row is a new standalone user; one inserted into a group made for it
-- beforehand (a linked bulk import) refreshes that group. ON CONFLICT keeps the common case free of lookups.
CREATE FUNCTION users_after_insert() RETURNS trigger AS $$
DECLARE
  standalone bigint;
BEGIN
  WITH ids AS (
    INSERT INTO user_ids (user_id, group_id) SELECT n.user_id, n.user_id FROM new_users n
    ON CONFLICT (user_id) DO NOTHING RETURNING user_id
  )
  INSERT INTO user_groups (group_id, tenant_id, time_joined)
    SELECT n.user_id, n.tenant_id, n.time_joined FROM new_users n JOIN ids ON ids.user_id = n.user_id;
  GET DIAGNOSTICS standalone = ROW_COUNT;
  IF standalone < (SELECT count(*) FROM new_users) THEN
    PERFORM account_groups_refresh(ARRAY(
      SELECT DISTINCT i.group_id FROM user_ids i WHERE i.user_id = ANY(ARRAY(SELECT n.user_id FROM new_users n))));
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_insert_trigger
  AFTER INSERT ON users REFERENCING NEW TABLE AS new_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_insert();

-- A changed contact or time_joined moves the group's reservations and listing key with it.
CREATE FUNCTION users_after_update() RETURNS trigger AS $$
DECLARE
  groups text[];
BEGIN
  groups := ARRAY(
    SELECT DISTINCT i.group_id
      FROM new_users n JOIN old_users o ON o.user_id = n.user_id JOIN user_ids i ON i.user_id = n.user_id
     WHERE (n.email, n.phone_number, n.third_party_id, n.third_party_user_id, n.time_joined)
           IS DISTINCT FROM (o.email, o.phone_number, o.third_party_id, o.third_party_user_id, o.time_joined));
  IF cardinality(groups) > 0 THEN
    PERFORM account_groups_refresh(groups);
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_update_trigger
  AFTER UPDATE ON users REFERENCING OLD TABLE AS old_users NEW TABLE AS new_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_update();

-- A deleted login method takes its id with it unless that id names its group (the retained id, kept while the
-- group has other login methods); a group left empty goes with everything that hangs off its ids.
CREATE FUNCTION users_after_delete() RETURNS trigger AS $$
DECLARE
  deleted text[];
  groups text[];
BEGIN
  deleted := ARRAY(SELECT o.user_id FROM old_users o);
  groups := ARRAY(SELECT DISTINCT i.group_id FROM user_ids i WHERE i.user_id = ANY(deleted));
  DELETE FROM user_ids i WHERE i.user_id = ANY(deleted) AND i.user_id <> i.group_id;
  PERFORM account_groups_refresh(groups);
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__after_delete_trigger
  AFTER DELETE ON users REFERENCING OLD TABLE AS old_users
  FOR EACH STATEMENT EXECUTE FUNCTION users_after_delete();
