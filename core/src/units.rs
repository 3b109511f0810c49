//! Units: fio's size and time suffixes, and the conversions between the units the project
//! reports (bytes per second internally; KiB/s for upstream's compat lines; MB/s for people).
//!
//! fio reads `k`, `m`, `g`, `t` (and `KiB`, `KB`, …) as powers of 1024 under its default
//! `kb_base=1024` (fio HOWTO, "Parameter types", `int`).

use std::time::Duration;

/// One kibibyte, 1024 bytes.
pub const KIB: u64 = 1024;
/// One mebibyte, 1024 × 1024 bytes.
pub const MIB: u64 = 1024 * 1024;
/// One gibibyte.
pub const GIB: u64 = 1024 * 1024 * 1024;
/// One megabyte (SI), 1 000 000 bytes: the unit of the SD Association's speed ratings.
pub const MB: f64 = 1_000_000.0;
/// One gigabyte (SI), 10⁹ bytes: the unit of disk labels.
pub const GB: f64 = 1_000_000_000.0;

/// Parses a fio size such as `256m`, `4k`, `4KiB`, `512` (bytes) into bytes.
///
/// Suffixes are case-insensitive powers of 1024 (`k`, `m`, `g`, `t`, `p`, with or without a
/// trailing `b`/`ib`), as fio reads them with its default `kb_base=1024`.
/// Errors with a short reason when the text is empty, has an unknown suffix, is a percentage
/// or a range, or overflows `u64`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty value".into());
    }
    if t.contains('%') {
        return Err(format!("`{t}`: percentages are not supported"));
    }
    if t.contains('-') || t.contains(',') || t.contains(':') || t.contains('/') {
        return Err(format!("`{t}`: ranges and lists are not supported"));
    }
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits_end == 0 {
        return Err(format!("`{t}` is not a number"));
    }
    let number: u64 = t[..digits_end]
        .parse()
        .map_err(|_| format!("`{t}` is too large"))?;
    let suffix = t[digits_end..].trim().to_ascii_lowercase();
    let shift = match suffix.as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        other => return Err(format!("`{t}`: unknown size suffix `{other}`")),
    };
    number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// Parses a fio time such as `10` (seconds), `10s`, `500ms`, `2m`, `1h`, `250us`.
///
/// A bare number is seconds, as for fio's `runtime`. Errors with a short reason on an
/// unknown suffix or an overflow.
pub fn parse_time(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if digits_end == 0 {
        return Err(format!("`{t}` is not a number"));
    }
    let number: u64 = t[..digits_end]
        .parse()
        .map_err(|_| format!("`{t}` is too large"))?;
    let suffix = t[digits_end..].trim().to_ascii_lowercase();
    let micros_per_unit: u64 = match suffix.as_str() {
        "" | "s" | "sec" => 1_000_000,
        "ms" | "msec" => 1_000,
        "us" | "usec" => 1,
        "m" | "min" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        other => return Err(format!("`{t}`: unknown time suffix `{other}`")),
    };
    number
        .checked_mul(micros_per_unit)
        .map(Duration::from_micros)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// Bytes per second → KiB/s (1024 bytes), the unit of upstream's "KB/sec" compat line.
pub fn kib_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s / KIB as f64
}

/// Bytes per second → MB/s (1 000 000 bytes), the unit of SD Association speed ratings.
pub fn mb_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s / MB
}

/// Bytes → MiB (1 048 576 bytes), f64: how the drive's own counters are shown.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

/// A byte count for people: `256 MiB`, `4 KiB`, `21.3 GB` style (binary units below 1 GiB
/// are exact for the block sizes of profiles; larger counts use SI GB like disk labels), with
/// the locale's decimal separator (`21,3 GB` in German; see [`crate::i18n::number`]).
pub fn human_bytes(bytes: u64) -> String {
    use crate::i18n::number;
    if bytes >= GIB {
        format!("{} GB", number(bytes as f64 / 1e9, 1))
    } else if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= MIB {
        format!("{} MiB", number(bytes as f64 / MIB as f64, 1))
    } else if bytes >= KIB && bytes % KIB == 0 {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

/// A byte count in SI units, the way disk labels and file managers give space: `67.1 MB`,
/// `640 MB`, `21.3 GB`, `512 kB` (1 MB = 1 000 000 bytes), with the locale's decimal
/// separator. For free and needed space, so that sizes on one page share one unit system.
pub fn si_bytes(bytes: u64) -> String {
    use crate::i18n::number;
    let b = bytes as f64;
    if b >= GB {
        format!("{} GB", number(b / GB, 1))
    } else if b >= 100.0 * MB {
        format!("{} MB", number(b / MB, 0))
    } else if b >= MB {
        format!("{} MB", number(b / MB, 1))
    } else if b >= 1000.0 {
        format!("{} kB", number(b / 1000.0, 0))
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_sizes_are_powers_of_1000() {
        assert_eq!(si_bytes(64 * MIB), "67.1 MB");
        assert_eq!(si_bytes(640_000_000), "640 MB");
        assert_eq!(si_bytes(21_300_000_000), "21.3 GB");
        assert_eq!(si_bytes(512_000), "512 kB");
        assert_eq!(si_bytes(12), "12 B");
    }

    #[test]
    fn sizes_are_powers_of_1024_like_fio() {
        assert_eq!(parse_size("256m"), Ok(256 * MIB));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("512k"), Ok(512 * KIB));
        assert_eq!(parse_size("1g"), Ok(GIB));
        assert_eq!(parse_size("4096"), Ok(4096));
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(parse_size("").is_err());
        assert!(parse_size("k").is_err());
        assert!(parse_size("4x").is_err());
        assert!(parse_size("50%").is_err());
        assert!(parse_size("4k-8k").is_err());
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("99999999999p").is_err());
    }

    #[test]
    fn times_default_to_seconds() {
        assert_eq!(parse_time("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_time("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_time("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_time("2x").is_err());
    }

    #[test]
    fn kib_and_mb_are_different_units() {
        assert_eq!(kib_per_s(10_240_000.0), 10_000.0);
        assert_eq!(mb_per_s(10_240_000.0), 10.24);
    }

    #[test]
    fn human_bytes_names_the_unit() {
        assert_eq!(human_bytes(256 * MIB), "256 MiB");
        assert_eq!(human_bytes(4096), "4 KiB");
        assert_eq!(human_bytes(21_300_000_000), "21.3 GB");
    }
}
