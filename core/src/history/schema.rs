//! The database's schema, versioned by `PRAGMA user_version`: [`MIGRATIONS`]`[n]` takes a
//! database from version `n` to `n + 1` (version 0 is an empty file). They run in order, each
//! inside the one transaction that also sets the new version, so a database is always at one
//! version or the next, never in between. A database newer than [`VERSION`] is left alone
//! ([`super::HistoryError::NewerSchema`]).

/// Version 1, the first: one row per run with the whole redacted report (`document`, JSON)
/// and the columns lists and trends select by; one row per drive with its basis and the name
/// the user gave it.
pub const V1: &str = "
CREATE TABLE runs (
    run_id       TEXT PRIMARY KEY NOT NULL,   -- Report.run_id, 32 hex digits
    started      TEXT NOT NULL,               -- RFC 3339, as in the report
    started_unix INTEGER NOT NULL,            -- the same instant, seconds since 1970 (UTC)
    drive_id     TEXT,                        -- DriveId, NULL when not identified
    profile      TEXT NOT NULL,               -- profile name
    profile_hash TEXT,                        -- Provenance.profile_hash, NULL in old documents
    engine       TEXT NOT NULL,               -- native | fio
    verdict      TEXT NOT NULL,               -- A1: PASS | FAIL | ERROR | NOT_GRADED
    a2_verdict   TEXT NOT NULL,
    outcome      TEXT NOT NULL,               -- finished | failed | cancelled
    document     TEXT NOT NULL                -- the whole report, JSON
);
CREATE INDEX runs_by_drive ON runs (drive_id, profile, started_unix);
CREATE INDEX runs_by_time ON runs (started_unix);
CREATE INDEX runs_by_verdict ON runs (verdict);
CREATE TABLE drives (
    drive_id TEXT PRIMARY KEY NOT NULL,       -- DriveId, 16 hex digits
    basis    TEXT NOT NULL,                   -- cid | usb | nvme | fs_uuid
    name     TEXT                             -- the user's name for it, NULL when none
);
";

/// Version 2: the drive's transport as its own column (filled from the stored documents) and
/// an index for trends, which select by drive and profile contents.
pub const V2: &str = "
ALTER TABLE runs ADD COLUMN transport TEXT;
UPDATE runs SET transport = json_extract(document, '$.target.transport');
CREATE INDEX runs_by_profile_hash ON runs (drive_id, profile_hash, started_unix);
";

/// Version 3: capacity checks (`agnostics-cli capacity`), one row per check with its whole
/// report, and on each drive the first check that found it fake (`found_fake`, the check's id),
/// which later checks never clear.
pub const V3: &str = "
CREATE TABLE capacity_checks (
    check_id       TEXT PRIMARY KEY NOT NULL, -- CapacityReport.check_id, 32 hex digits
    drive_id       TEXT,                      -- DriveId, NULL when not identified
    started        TEXT NOT NULL,             -- RFC 3339
    started_unix   INTEGER NOT NULL,          -- seconds since 1970 (UTC)
    mode           TEXT NOT NULL,             -- mounted | device
    verdict        TEXT NOT NULL,             -- genuine | fake | loses_data | not_checked_beyond | unsure
    verified_bytes INTEGER NOT NULL,
    claimed_bytes  INTEGER NOT NULL,
    real_bytes     INTEGER,                   -- a fake's real size, NULL otherwise
    document       TEXT NOT NULL              -- the whole report, JSON
);
CREATE INDEX capacity_by_drive ON capacity_checks (drive_id, started_unix);
ALTER TABLE drives ADD COLUMN found_fake TEXT;
";

/// Every migration, in order: `MIGRATIONS[n]` goes from version `n` to `n + 1`.
pub const MIGRATIONS: [&str; 3] = [V1, V2, V3];

/// The newest schema version this program knows.
pub const VERSION: u32 = MIGRATIONS.len() as u32;

/// Brings `conn` from its `user_version` up to [`VERSION`], each step in its own `BEGIN
/// IMMEDIATE` transaction (the version is read again inside it, so two programs opening a new
/// file at once migrate it once). Returns the version found before. Errors: SQLite's; a
/// version above [`VERSION`] is `Ok(found)` and nothing is changed (the caller refuses it).
pub fn migrate(conn: &mut rusqlite::Connection) -> rusqlite::Result<u32> {
    let found: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found >= VERSION {
        return Ok(found);
    }
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now >= VERSION {
            tx.commit()?;
            return Ok(found);
        }
        tx.execute_batch(MIGRATIONS[now as usize])?;
        tx.execute_batch(&format!("PRAGMA user_version = {}", now + 1))?;
        tx.commit()?;
    }
}
