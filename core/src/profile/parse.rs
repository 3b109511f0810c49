//! Reading a job file's text into a [`Profile`]: the lines into sections (`[global]` and the
//! jobs, each starting from the global options), then each job section checked and completed
//! with fio's defaults into a [`Job`].

use std::path::PathBuf;

use super::options::{apply, Options};
use super::{is_sync_engine, Job, Profile, ProfileError, Rw};

/// A job section as read: its name, the line of its header and its options.
struct Section {
    name: String,
    line: usize,
    options: Options,
}

/// The error at `line` (0: the whole file) and `key` of `file`.
fn error(file: &str, line: usize, key: &str, reason: String) -> ProfileError {
    ProfileError {
        file: file.to_owned(),
        line,
        key: key.to_owned(),
        reason,
    }
}

impl Profile {
    /// Parses job-file text. `file` names it in errors; `source` is kept in the profile.
    ///
    /// Errors (each naming file, line and key): a key outside the subset, a bad value, an
    /// unsupported `rw` or `ioengine`, `numjobs` > 1 without `group_reporting`, `time_based`
    /// without `runtime`, a directive (`include`), a `$` variable, a line that is neither
    /// section, option nor comment, a job without `size`, a job after the first without
    /// `stonewall`, two jobs of the same name (`name=` or section), or no job at all.
    pub fn parse(text: &str, file: &str, source: Option<PathBuf>) -> Result<Profile, ProfileError> {
        let mut warnings = Vec::new();
        let sections = read_sections(text, file, &mut warnings)?;
        if sections.is_empty() {
            return Err(error(
                file,
                0,
                "jobs",
                "no job section: nothing to run".into(),
            ));
        }
        let mut jobs: Vec<crate::profile::Job> = Vec::with_capacity(sections.len());
        for (i, section) in sections.into_iter().enumerate() {
            let named_at = section.options.lines.get("name").copied();
            let job = finish_job(i, section, file, &mut warnings)?;
            if jobs.iter().any(|j| j.name == job.name) {
                let (line, key) = match named_at {
                    Some(line) => (line, "name"),
                    None => (job.line, job.name.as_str()),
                };
                return Err(error(
                    file,
                    line,
                    key,
                    format!(
                        "a job named `{}` comes earlier; results are matched by name",
                        job.name
                    ),
                ));
            }
            jobs.push(job);
        }
        let name = source
            .as_deref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sd_bench".into());
        Ok(Profile {
            name,
            // Without a file it is built-in text, named as the standard test is.
            builtin: source.is_none().then_some(super::BuiltinProfile::Standard),
            source,
            jobs,
            warnings,
        })
    }
}

/// The job sections of `text` in order, each with the `[global]` options given before it
/// (never its `stonewall`) and its own; warnings from the options are added to `warnings`.
fn read_sections(
    text: &str,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<Section>, ProfileError> {
    // A byte-order mark, as Windows editors write at the start of UTF-8 files, is not text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut global = Options::default();
    let mut jobs: Vec<Section> = Vec::new();
    let mut in_global = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = section_name(rest, line, line_no, file)?;
            if name == "global" {
                in_global = true;
            } else {
                if jobs.iter().any(|s| s.name == name) {
                    return Err(error(
                        file,
                        line_no,
                        name,
                        "a job of this name comes earlier; results are matched by name".into(),
                    ));
                }
                in_global = false;
                let mut options = global.clone();
                options.stonewall = false;
                jobs.push(Section {
                    name: name.to_owned(),
                    line: line_no,
                    options,
                });
            }
            continue;
        }
        let (key, value) = option_line(line, line_no, file)?;
        let target = if in_global {
            &mut global
        } else if let Some(section) = jobs.last_mut() {
            &mut section.options
        } else {
            return Err(error(
                file,
                line_no,
                key,
                "an option before any section".into(),
            ));
        };
        apply(target, key, value, warnings).map_err(|reason| error(file, line_no, key, reason))?;
        target.lines.insert(key.to_owned(), line_no);
    }
    Ok(jobs)
}

/// The name in a section header `line` (`rest` is what follows its `[`), trimmed.
fn section_name<'a>(
    rest: &'a str,
    line: &str,
    line_no: usize,
    file: &str,
) -> Result<&'a str, ProfileError> {
    let name = rest.strip_suffix(']').ok_or_else(|| {
        error(
            file,
            line_no,
            line,
            "a section header must end with `]`".into(),
        )
    })?;
    let name = name.trim();
    if name.is_empty() {
        return Err(error(file, line_no, "[]", "empty section name".into()));
    }
    Ok(name)
}

/// An option line as its key and value (`key` alone has none), refusing directives and `$`
/// variables.
fn option_line<'a>(
    line: &'a str,
    line_no: usize,
    file: &str,
) -> Result<(&'a str, Option<&'a str>), ProfileError> {
    if line.starts_with("include ") || line == "include" {
        return Err(error(
            file,
            line_no,
            "include",
            "include directives are not supported".into(),
        ));
    }
    let (key, value) = match line.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (line, None),
    };
    if key.contains('$') || value.is_some_and(|v| v.contains('$')) {
        return Err(error(
            file,
            line_no,
            key,
            "`$` variables are not supported".into(),
        ));
    }
    Ok((key, value))
}

/// The job of the `index`th section (from 0): checks that it has a `size` and follows the
/// rules of [`check_job`], then fills in fio's defaults; a synchronous engine's `iodepth`
/// above 1 is run at 1, with a warning.
fn finish_job(
    index: usize,
    section: Section,
    file: &str,
    warnings: &mut Vec<String>,
) -> Result<Job, ProfileError> {
    let Section {
        name,
        line,
        options: o,
    } = section;
    let size_bytes = o
        .size
        .ok_or_else(|| error(file, line, "size", format!("job `{name}` has no size")))?;
    let bs = o.bs.unwrap_or(4096);
    let numjobs = o.numjobs.unwrap_or(1);
    let time_based = o.time_based.unwrap_or(false);
    check_job(index, &name, line, &o, file, size_bytes)?;
    let ioengine = o.ioengine.unwrap_or_else(|| "libaio".into());
    let mut iodepth = o.iodepth.unwrap_or(1);
    // fio runs its synchronous engines one request at a time whatever iodepth says;
    // both engines must run the same test, so the job is run, and reported, at 1.
    if is_sync_engine(&ioengine) && iodepth > 1 {
        warnings.push(format!(
            "{file}: job `{name}` (line {line}): ioengine={ioengine} is synchronous, \
             so fio runs it at iodepth=1 whatever iodepth says; iodepth={iodepth} is \
             ignored and both engines run iodepth=1 (use libaio or io_uring for a queue)"
        ));
        iodepth = 1;
    }
    Ok(Job {
        name: o.name.unwrap_or(name),
        description: o.description,
        time_based,
        ramp_time: o.ramp_time,
        loops: o.loops.unwrap_or(1),
        numjobs,
        rw: o.rw.unwrap_or(Rw::Read),
        bs,
        size_bytes,
        iodepth,
        direct: o.direct.unwrap_or(false),
        end_fsync: o.end_fsync.unwrap_or(false),
        runtime: o.runtime,
        ioengine,
        line,
    })
}

/// The rules a job must follow to run here, each an error naming the file, the line and the
/// key: it waits for the job before it (`stonewall`), its block fits its size, its clones are
/// reported together (`group_reporting`) and keep at most 1024 requests in flight, and a
/// `time_based` job has a `runtime`.
fn check_job(
    index: usize,
    name: &str,
    line: usize,
    o: &Options,
    file: &str,
    size_bytes: u64,
) -> Result<(), ProfileError> {
    let bs = o.bs.unwrap_or(4096);
    if index > 0 && !o.stonewall {
        return Err(error(
            file,
            line,
            "stonewall",
            format!(
                "job `{name}` would run at the same time as the job before it; \
                 Agnostics runs jobs one after another: add `stonewall`"
            ),
        ));
    }
    if bs > size_bytes {
        return Err(error(
            file,
            line,
            "bs",
            format!("block size {bs} is larger than size {size_bytes}"),
        ));
    }
    let numjobs = o.numjobs.unwrap_or(1);
    if numjobs > 1 && !o.group_reporting.unwrap_or(false) {
        return Err(error(
            file,
            o.line_of("numjobs", line),
            "numjobs",
            format!(
                "job `{name}` runs {numjobs} clones (numjobs={numjobs}), which fio reports one \
                 by one; Agnostics measures a job's clones together as one phase: add \
                 `group_reporting`"
            ),
        ));
    }
    let depth = o.iodepth.unwrap_or(1).saturating_mul(numjobs);
    if depth > 1024 {
        return Err(error(
            file,
            o.line_of("numjobs", line),
            "numjobs",
            format!(
                "job `{name}` would keep {depth} requests in flight (iodepth × numjobs); \
                 at most 1024"
            ),
        ));
    }
    if o.time_based.unwrap_or(false) && o.runtime.is_none() {
        return Err(error(
            file,
            o.line_of("time_based", line),
            "time_based",
            format!(
                "job `{name}` is time_based without a runtime: it would never end; \
                 add `runtime=` (e.g. runtime=30s)"
            ),
        ));
    }
    Ok(())
}
