//! One job-file option (`key=value`, or `key` alone for a flag) applied to a section's
//! options: the supported subset of fio's keys and their aliases, each value checked.

use std::time::Duration;

use super::Rw;
use crate::units::{parse_size, parse_time};

/// A section's options as given; `None` is "not set" (the global value or fio's default).
#[derive(Debug, Clone, Default)]
pub(super) struct Options {
    pub rw: Option<Rw>,
    pub bs: Option<u64>,
    pub size: Option<u64>,
    pub iodepth: Option<u32>,
    pub direct: Option<bool>,
    pub end_fsync: Option<bool>,
    pub runtime: Option<Duration>,
    pub stonewall: bool,
    pub ioengine: Option<String>,
    pub filename: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    pub time_based: Option<bool>,
    pub ramp_time: Option<Duration>,
    pub loops: Option<u32>,
    pub numjobs: Option<u32>,
    pub group_reporting: Option<bool>,
    /// The line each key was last set on, for messages about a key's value.
    pub lines: std::collections::BTreeMap<String, usize>,
}

impl Options {
    /// The line `key` was set on, or `fallback` when it was not.
    pub fn line_of(&self, key: &str, fallback: usize) -> usize {
        self.lines.get(key).copied().unwrap_or(fallback)
    }
}

/// The most clones of one job (`numjobs`): each keeps its own `iodepth` requests in flight.
pub(super) const MAX_NUMJOBS: u32 = 64;

/// The ioengines a profile may name (fio's names).
const KNOWN_ENGINES: [&str; 7] = [
    "libaio", "io_uring", "psync", "pvsync", "pvsync2", "sync", "posixaio",
];

/// Sets `key` in `o`; an ignored `filename` adds a warning. The error says what is wrong with
/// the value, or that the key is outside the subset.
pub(super) fn apply(
    o: &mut Options,
    key: &str,
    value: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    match key {
        "rw" | "readwrite" => o.rw = Some(rw(needs(key, value)?)?),
        "bs" | "blocksize" => o.bs = Some(block_size(needs(key, value)?)?),
        "size" => o.size = Some(size(needs(key, value)?)?),
        "iodepth" => o.iodepth = Some(iodepth(needs(key, value)?)?),
        "direct" => o.direct = Some(flag(key, value)?),
        "end_fsync" => o.end_fsync = Some(flag(key, value)?),
        "stonewall" | "wait_for_previous" => o.stonewall = flag(key, value)?,
        "runtime" | "timeout" => {
            let t = duration(needs(key, value)?)?;
            o.runtime = if t.is_zero() { None } else { Some(t) };
        }
        "numjobs" => o.numjobs = Some(count(needs(key, value)?, MAX_NUMJOBS)?),
        "loops" => o.loops = Some(count(needs(key, value)?, u32::MAX)?),
        "time_based" => o.time_based = Some(flag(key, value)?),
        "ramp_time" => {
            let t = duration(needs(key, value)?)?;
            o.ramp_time = if t.is_zero() { None } else { Some(t) };
        }
        "group_reporting" => o.group_reporting = Some(flag(key, value)?),
        // fio runs the jobs Agnostics hands it as threads anyway; `thread=0` asks for
        // processes, which change nothing that is measured.
        "thread" => {
            flag(key, value)?;
        }
        "name" => o.name = Some(needs(key, value)?.to_owned()),
        "description" => o.description = Some(value.unwrap_or("").trim_matches('"').to_owned()),
        "ioengine" => o.ioengine = Some(ioengine(needs(key, value)?)?),
        "filename" => {
            let v = needs(key, value)?;
            warnings.push(format!(
                "filename={v} is ignored: the test only ever writes its own file in the chosen target"
            ));
            o.filename = Some(v.to_owned());
        }
        "directory" => {
            needs(key, value)?;
        }
        other => {
            return Err(format!(
                "`{other}` is not in the supported subset of fio options"
            ));
        }
    }
    Ok(())
}

/// `rw`: read, write, randread or randwrite.
fn rw(value: &str) -> Result<Rw, String> {
    Ok(match value {
        "read" => Rw::Read,
        "write" => Rw::Write,
        "randread" => Rw::RandRead,
        "randwrite" => Rw::RandWrite,
        other => {
            return Err(format!(
                "`{other}` is not supported (read, write, randread or randwrite)"
            ))
        }
    })
}

/// `bs`, bytes: a positive multiple of 512, at most 64 MiB.
fn block_size(value: &str) -> Result<u64, String> {
    let bs = parse_size(value)?;
    if bs == 0 || bs % 512 != 0 {
        return Err(format!(
            "block size {bs} is not a positive multiple of 512 bytes"
        ));
    }
    if bs > 64 * crate::units::MIB {
        return Err(format!("block size {bs} is larger than 64 MiB"));
    }
    Ok(bs)
}

/// `size`, bytes: larger than 0.
fn size(value: &str) -> Result<u64, String> {
    let size = parse_size(value)?;
    if size == 0 {
        return Err("size must be larger than 0".into());
    }
    Ok(size)
}

/// The longest `runtime` or `ramp_time`: 7 days (a week-long burn-in; fio takes any length,
/// and `runtime=999999999` would run for 31 years without a word).
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// `runtime`, `ramp_time`: a time ([`parse_time`]) of at most [`MAX_DURATION`].
fn duration(value: &str) -> Result<std::time::Duration, String> {
    let t = parse_time(value)?;
    if t > MAX_DURATION {
        return Err(format!(
            "`{value}` is longer than 7 days (at most 7d, or 604800 seconds)"
        ));
    }
    Ok(t)
}

/// `value` as a whole number of type `T`: "not a whole number", or "too large" for digits
/// beyond `T`'s range.
fn whole<T: std::str::FromStr>(value: &str) -> Result<T, String> {
    value.parse().map_err(|_| {
        if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            format!("`{value}` is too large")
        } else {
            format!("`{value}` is not a whole number")
        }
    })
}

/// `iodepth`: a whole number in 1..=1024.
fn iodepth(value: &str) -> Result<u32, String> {
    let depth: u32 = whole(value)?;
    if !(1..=1024).contains(&depth) {
        return Err(format!("{depth} is outside 1..=1024"));
    }
    Ok(depth)
}

/// `numjobs`, `loops`: a whole number in 1..=`max`.
fn count(value: &str, max: u32) -> Result<u32, String> {
    let n: u32 = whole(value)?;
    if !(1..=max).contains(&n) {
        return Err(format!("{n} is outside 1..={max}"));
    }
    Ok(n)
}

/// `ioengine`: one of [`KNOWN_ENGINES`].
fn ioengine(value: &str) -> Result<String, String> {
    if !KNOWN_ENGINES.contains(&value) {
        return Err(format!(
            "ioengine `{value}` is not supported ({})",
            KNOWN_ENGINES.join(", ")
        ));
    }
    Ok(value.to_owned())
}

/// A flag: alone or `1`/`true` is set, `0`/`false` is not.
fn flag(key: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        None => Ok(true),
        Some("1") | Some("true") => Ok(true),
        Some("0") | Some("false") => Ok(false),
        Some(v) => Err(format!("`{v}` is not 0 or 1 (key `{key}`)")),
    }
}

/// The value of `key`, which must have a non-empty one.
fn needs<'a>(key: &str, value: Option<&'a str>) -> Result<&'a str, String> {
    match value {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(format!("`{key}` needs a value")),
    }
}
