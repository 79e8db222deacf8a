-- One id names one user. A mapping whose external id is another user's id made two users answer to one id: a
-- sign-in showed one user the other's id, and GET /user/id or POST /user/remove with that id reached the other
-- user. The mapping route refused it, bulk import did not; every path now checks up front (id-rules.ts), and these
-- triggers hold the rule for whatever gets past a check (a writer committing between the check and the insert):
--   a new mapping may not take a user's id as its external id, unless its transaction says the mapping is forced
--   (contract §9.1 lets `force` do that);
--   a new user id may not be an existing mapping's external id (bulk import hands out a user's id when it is
--   queued, before the user exists).
-- Both raise unique_violation with a constraint name, so pg-errors.ts reads them like a unique index. Statement
-- triggers probe one index per new row through `= ANY(ARRAY(...))`, which stays an index probe on tables that were
-- never analyzed, so a bulk batch pays one probe per row.

CREATE FUNCTION user_id_mappings_after_insert() RETURNS trigger AS $$
BEGIN
  IF coalesce(current_setting('identity_core.force_user_id_mapping', true), '') <> 'on' AND EXISTS (
       SELECT 1 FROM user_ids i WHERE i.user_id = ANY(ARRAY(SELECT n.external_user_id FROM new_mappings n))) THEN
    RAISE EXCEPTION 'an external user id is another user''s id'
      USING ERRCODE = 'unique_violation', CONSTRAINT = 'user_id_mappings__external_user_id_not_user_id',
            TABLE = 'user_id_mappings';
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER user_id_mappings__after_insert_trigger
  AFTER INSERT ON user_id_mappings REFERENCING NEW TABLE AS new_mappings
  FOR EACH STATEMENT EXECUTE FUNCTION user_id_mappings_after_insert();

CREATE FUNCTION user_ids_after_insert() RETURNS trigger AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM user_id_mappings m WHERE m.external_user_id = ANY(ARRAY(SELECT n.user_id FROM new_ids n))) THEN
    RAISE EXCEPTION 'a user id is another user''s external id'
      USING ERRCODE = 'unique_violation', CONSTRAINT = 'user_ids__user_id_not_external_user_id', TABLE = 'user_ids';
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER user_ids__after_insert_trigger
  AFTER INSERT ON user_ids REFERENCING NEW TABLE AS new_ids
  FOR EACH STATEMENT EXECUTE FUNCTION user_ids_after_insert();
