//! Reading what fio writes beside its JSON: a per-request latency log (`write_lat_log` with
//! `log_avg_msec=0` and `log_offset=1`) and the lines a verify pass prints for each block that
//! read back wrong.
//!
//! Formats relied on, as fio 3.33 (Debian 12) writes them:
//! - The log: one line per completed request, `time, value, direction, block size, offset,
//!   priority` (fio's HOWTO, "Log File Formats": time in ms since the job started, a latency
//!   log's value in ns, direction 0 read / 1 write / 2 trim, block size and offset in bytes).
//!   Later fio versions may add columns after the offset; they are ignored. With
//!   `log_avg_msec` set, fio writes 0 for the block size and offset, so the log must be
//!   per request.
//! - A verify failure (fio 3.33's `verify.c`): a checksum that does not match prints
//!   `<type>: verify failed at file <name> offset <bytes>, length <bytes> (requested block:
//!   …)`, a bad header (magic, length, seed, offset or header checksum) prints `verify: bad
//!   <what> … at file <name> offset <bytes>, length <bytes> (requested block: …)`, each on
//!   one line to stderr. With `verify_interval` equal to the block size, the offset is the
//!   block's.

/// One completed request of a per-request log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    /// When it completed, ms since the job started.
    pub time_ms: u64,
    /// The logged value: for a latency log, ns.
    pub value: u64,
    /// The direction: 0 read, 1 write, 2 trim.
    pub direction: u8,
    /// The request's size, bytes.
    pub bytes: u64,
    /// The request's file offset, bytes.
    pub offset: u64,
}

/// Parses a per-request log (see the module's format). Blank lines are skipped.
///
/// Errors: the first line that does not hold at least five whole numbers, by its number
/// (from 1) and text.
pub fn parse_log(text: &str) -> Result<Vec<LogEntry>, String> {
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = || format!("line {} of fio's log is not a request: {line:?}", n + 1);
        let mut fields = line.split(',').map(|f| f.trim().parse::<u64>());
        let mut next = || fields.next().and_then(Result::ok).ok_or_else(bad);
        let time_ms = next()?;
        let value = next()?;
        let direction = u8::try_from(next()?).map_err(|_| bad())?;
        let bytes = next()?;
        let offset = next()?;
        if bytes == 0 {
            // An averaged log (log_avg_msec) writes 0 here: not one request.
            return Err(bad());
        }
        entries.push(LogEntry {
            time_ms,
            value,
            direction,
            bytes,
            offset,
        });
    }
    Ok(entries)
}

/// The file offsets, bytes, that the verify-failure lines in fio's `stderr` name (see the
/// module's format), in the order printed. Lines of any other kind are skipped.
pub fn verify_failures(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter(|l| l.contains("verify failed at file ") || l.starts_with("verify: bad "))
        .filter_map(failure_offset)
        .collect()
}

/// The offset in ` at file <name> offset <bytes>, length` of a verify-failure line.
fn failure_offset(line: &str) -> Option<u64> {
    let (_, rest) = line.split_once(" at file ")?;
    let (_, rest) = rest.split_once(" offset ")?;
    let (digits, _) = rest.split_once(", length ")?;
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A per-request write latency log fio 3.33 wrote for 1 MiB writes.
    const LOG: &str = include_str!("../../../tests/fixtures/fio/sustained-write_clat.1.log");
    /// fio 3.33's stderr for a verify pass over a file with five damaged 4 KiB blocks.
    const STDERR: &str = include_str!("../../../tests/fixtures/fio/sustained-verify.stderr");

    #[test]
    fn a_real_per_request_log_gives_every_write_in_order() {
        let entries = parse_log(LOG).unwrap();
        assert_eq!(entries.len(), 12);
        assert!(entries
            .iter()
            .all(|e| e.direction == 1 && e.bytes == 1 << 20));
        let offsets: Vec<u64> = entries.iter().map(|e| e.offset).collect();
        assert_eq!(offsets, (0..12).map(|i| i << 20).collect::<Vec<u64>>());
        assert!(entries.windows(2).all(|w| w[0].time_ms <= w[1].time_ms));
        assert!(entries.iter().all(|e| e.value > 0));
    }

    #[test]
    fn an_averaged_or_damaged_log_is_refused() {
        // log_avg_msec: one averaged line per window, block size and offset 0.
        assert!(parse_log("1000, 52311, 1, 0, 0, 0\n").is_err());
        assert!(parse_log("12, 5000, 1\n").is_err());
        assert!(parse_log("12, x, 1, 4096, 0, 0\n").is_err());
        // Blank lines are nothing; a column after the offset is allowed.
        let e = parse_log("\n7, 900, 0, 4096, 8192\n8, 950, 0, 4096, 12288, 0, 1\n").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].offset, 12288);
    }

    #[test]
    fn every_kind_of_verify_failure_names_its_block() {
        // Zeros (bad magic), one changed byte (checksum), a block from elsewhere (bad header
        // offset), and two more changed bytes.
        assert_eq!(
            verify_failures(STDERR),
            [12288, 40960, 86016, 1228800, 1232896]
        );
        assert_eq!(
            verify_failures("fio: some other trouble\n"),
            Vec::<u64>::new()
        );
    }
}
