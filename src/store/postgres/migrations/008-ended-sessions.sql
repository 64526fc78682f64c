-- Dashboard sessions signed out before they expired (contract.ts:
-- endSession, sessionEnded), shared by every machine on the database, so a
-- sign-out holds on every instance. Rows past expires_at may be deleted.
CREATE TABLE ended_sessions (
  session_id text COLLATE "C" PRIMARY KEY,
  expires_at bigint NOT NULL
);
