-- Email-verification tokens (the EmailVerification recipe's routes). As with password-reset tokens, only a SHA-256
-- digest of each token is kept, so a copy of the table verifies nobody's email. A token belongs to a user and goes
-- with it; spending one ends every token of the same (user, email). expires_at is indexed for the sweep of expired
-- tokens.
CREATE TABLE email_verification_tokens (
  token_hash text   NOT NULL,
  user_id    text   NOT NULL,
  email      text   NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT email_verification_tokens__pkey PRIMARY KEY (token_hash),
  CONSTRAINT email_verification_tokens__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
CREATE INDEX email_verification_tokens__user_id_email_idx ON email_verification_tokens (user_id, email);
CREATE INDEX email_verification_tokens__expires_at_idx ON email_verification_tokens (expires_at);
