-- Session bridge: a user signed in at the old provider exchanges a valid token of it, once, for the user to start a
-- session with here. Several core instances share these tables, so "once" holds across them.

-- One row per token exchanged, keyed by a digest of its signed part (the token itself is never stored). The row
-- outlives the token's expiry (a replay after it is refused by the expiry check anyway) and is the progress record
-- per source and day; it goes with its user.
CREATE TABLE session_bridge_exchanges (
  token_digest bytea  NOT NULL,
  source       text   NOT NULL,
  user_id      text   NOT NULL,
  exchanged_at bigint NOT NULL,
  expires_at   bigint NOT NULL,
  CONSTRAINT session_bridge_exchanges__pkey PRIMARY KEY (token_digest),
  CONSTRAINT session_bridge_exchanges__token_digest_check CHECK (octet_length(token_digest) = 32),
  CONSTRAINT session_bridge_exchanges__user_id_fkey FOREIGN KEY (user_id) REFERENCES users (user_id) ON DELETE CASCADE
);
CREATE INDEX session_bridge_exchanges__source_exchanged_at_idx ON session_bridge_exchanges (source, exchanged_at);
CREATE INDEX session_bridge_exchanges__user_id_idx ON session_bridge_exchanges (user_id);

-- Refusals per source, UTC day and cause, summed over every instance (each flushes its own counts every few seconds,
-- so a flood of bad tokens costs one statement per flush, not one per token).
CREATE TABLE session_bridge_refusals (
  source text   NOT NULL,
  day    date   NOT NULL,
  cause  text   NOT NULL,
  count  bigint NOT NULL,
  CONSTRAINT session_bridge_refusals__pkey PRIMARY KEY (source, day, cause)
);

-- A pending (lazy) user is found by the old id its pointer carries ($lazy$<source>$<login>$<old id, base64url>).
CREATE INDEX users__lazy_legacy_user_id_idx ON users (split_part(password_hash, '$', 5)) WHERE password_hash LIKE '$lazy$%';
