-- A password reset token is issued for a user's email and password as they are. It used to outlive both: after an
-- email change the old address could still reset the account, and a token survived a password change. Any change
-- of a user's email or stored password hash now deletes the user's reset tokens, whatever path makes it (PUT
-- /recipe/user, a reset, a hash import over an existing user, a rehash or adoption at sign-in, an operator's
-- UPDATE). Spending a token also checks that the user still has the email it was issued for (password-reset.ts).

CREATE FUNCTION users_end_reset_tokens() RETURNS trigger AS $$
BEGIN
  DELETE FROM emailpassword_reset_tokens WHERE user_id = NEW.user_id;
  RETURN NULL;
END
$$ LANGUAGE plpgsql SET search_path FROM CURRENT;

CREATE TRIGGER users__end_reset_tokens_trigger
  AFTER UPDATE OF email, password_hash ON users
  FOR EACH ROW WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.password_hash IS DISTINCT FROM NEW.password_hash)
  EXECUTE FUNCTION users_end_reset_tokens();
