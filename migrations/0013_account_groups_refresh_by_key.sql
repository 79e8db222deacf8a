-- A bulk import of users with several login methods refreshes thousands of groups in one statement (AL-11). Two
-- parts of 0011 then stopped being key lookups:
--   account_groups_refresh recomputed time_joined with `i.group_id = ANY(groups) GROUP BY`: on tables that were
--     never analyzed the planner reads all of user_ids in key order and filters each row against the array, so a
--     batch cost grew with the table. It now takes the minimum per group, one index probe per group;
--   users_after_insert refreshed the group of every inserted login method as soon as one of them had been placed in
--     a group beforehand, so the standalone users of a mixed batch were refreshed for nothing. It now refreshes only
--     the groups made beforehand: those of linked login methods (group id not their own) and primary ones.
-- Behaviour is otherwise unchanged.

CREATE OR REPLACE FUNCTION account_groups_refresh(groups text[]) RETURNS void AS $$
BEGIN
  DELETE FROM user_groups g
   WHERE g.group_id = ANY(groups)
     AND NOT EXISTS (SELECT 1 FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = g.group_id);

  UPDATE user_groups g SET time_joined = t.time_joined
    FROM (SELECT DISTINCT k.group_id FROM unnest(groups) AS k(group_id)) k
    CROSS JOIN LATERAL (SELECT min(u.time_joined) AS time_joined
                          FROM user_ids i JOIN users u ON u.user_id = i.user_id WHERE i.group_id = k.group_id) t
   WHERE g.group_id = k.group_id AND t.time_joined IS NOT NULL AND g.time_joined <> t.time_joined;

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

CREATE OR REPLACE FUNCTION users_after_insert() RETURNS trigger AS $$
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
      SELECT DISTINCT i.group_id
        FROM new_users n JOIN user_ids i ON i.user_id = n.user_id JOIN user_groups g ON g.group_id = i.group_id
       WHERE i.group_id <> n.user_id OR g.is_primary));
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;
