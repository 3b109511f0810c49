//! The report in text: upstream's result lines ([`compat_lines`], English on purpose) and the
//! translated plain-text form for people ([`to_text`]). Figures are rounded down
//! ([`crate::figure::down`]); outside text is escaped ([`super::visible`]).

use std::fmt::Write;

use super::safe::visible;
use super::{Report, RunReport};
use crate::figure::{down_text, whole};
use crate::i18n::{fill, gettext, number};
use crate::verdict::{Check, Metric, Standard, Verdict};

/// Upstream agnostics' result lines for one run, exactly as upstream prints them (English on
/// purpose: scripts parse them): `Sequential write speed N KB/sec (target 10000) - PASS`,
/// `Random write speed N IOPS (target 500) - FAIL`, `Random read speed N IOPS (target 1500) -
/// PASS`, and after a sequential-write FAIL upstream's reformatting note. Values are whole
/// numbers rounded down ([`crate::figure::whole`], as the text report's table), so a shown value never reaches
/// the target of a FAIL (KB/sec is KiB/s). A check without a value prints `ERROR` in place of
/// the number; a check that could not be graded prints its value and `ERROR`.
pub fn compat_lines(run: &RunReport) -> Vec<String> {
    let mut lines = Vec::new();
    let fmt = |c: Option<&Check>, what: &str, unit: &str| -> String {
        match c {
            Some(c) => {
                let value = c
                    .value
                    .map(|v| format!("{}", whole(v) as u64))
                    .unwrap_or_else(|| "ERROR".into());
                format!(
                    "{what} {value} {unit} (target {}) - {}",
                    c.target as u64, c.verdict
                )
            }
            None => format!("{what} ERROR {unit} - ERROR"),
        }
    };
    let seq = run.check(Metric::SeqWrite, Standard::A1);
    lines.push(fmt(seq, "Sequential write speed", "KB/sec"));
    lines.push(fmt(
        run.check(Metric::RandWrite, Standard::A1),
        "Random write speed",
        "IOPS",
    ));
    lines.push(fmt(
        run.check(Metric::RandRead, Standard::A1),
        "Random read speed",
        "IOPS",
    ));
    if seq.map(|c| c.verdict) == Some(Verdict::Fail) {
        lines.push(
            "Note that sequential write speed declines over time as a card is used - your card may require reformatting"
                .into(),
        );
    }
    lines
}

/// The report as plain text for people (translated), the form the CLI prints and the desktop
/// app's **Copy results** copies: each run's upstream compat lines, then a summary with MB/s and
/// IOPS, the device tested, warnings and advice.
pub fn to_text(report: &Report) -> String {
    render(report, false)
}

/// [`to_text`], and under each phase's row what the drive itself did in it: the bytes and
/// requests its block device read and wrote and the most requests it had in flight (the
/// phase's `device_io`), where they were counted.
pub fn to_text_verbose(report: &Report) -> String {
    render(report, true)
}

fn render(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", report.program, report.started);
    write_header(&mut out, report);
    for run in &report.runs {
        write_run(&mut out, run, verbose);
    }
    if let Some(table) = &report.table {
        let _ = writeln!(out);
        out.push_str(&super::table::to_text(table));
    }
    let _ = writeln!(out);
    write_notes(&mut out, report);
    write_result(&mut out, report);
    write_references(&mut out, report);
    out
}

/// After the verdict, the published figures beside the card's own, each naming its source
/// ([`super::published::ReferenceLine::text`]), then each source's address once; nothing
/// when there are none.
fn write_references(out: &mut String, report: &Report) {
    if report.references.is_empty() {
        return;
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{}",
        gettext("Published figures (for comparison, not a grade):")
    );
    if let Some(conclusion) = super::published::conclusion(&report.references) {
        let _ = writeln!(out, "{conclusion}");
    }
    let mut sources: Vec<&str> = Vec::new();
    for line in &report.references {
        let _ = writeln!(out, "• {}", line.text());
        if !sources.contains(&line.url.as_str()) {
            sources.push(&line.url);
        }
    }
    for url in sources {
        let _ = writeln!(out, "  {}", visible(url));
    }
}

/// The lines that say what was tested and how: the target and its device, the card's summary,
/// the engine with its I/O path and the profile.
fn write_header(out: &mut String, report: &Report) {
    if let Some(t) = &report.target {
        let device = t
            .device
            .clone()
            .unwrap_or_else(|| gettext("no block device"));
        let transport = t.transport.as_str().to_owned();
        let mut line = fill(
            &gettext("Tested: {path} on {device} ({transport}, {fs_type})"),
            &[
                ("path", &visible(&t.path)),
                ("device", &visible(&device)),
                ("transport", &transport),
                ("fs_type", &visible(&t.fs_type)),
            ],
        );
        if let Some(model) = &t.model {
            let _ = write!(line, " — {}", visible(model));
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(card) = report
        .card
        .as_ref()
        .and_then(crate::card::CardInfo::summary)
    {
        let _ = writeln!(out, "{card}");
    }
    write_card_link(out, report);
    let engine = match &report.io_path {
        None => fill(
            &gettext("Engine: {engine}; profile {profile}"),
            &[
                ("engine", &report.engine.as_str()),
                ("profile", &report.profile.name),
            ],
        ),
        Some(io_path) => fill(
            &gettext("Engine: {engine} ({io_path}); profile {profile}"),
            &[
                ("engine", &report.engine.as_str()),
                ("io_path", io_path),
                ("profile", &report.profile.name),
            ],
        ),
    };
    let _ = writeln!(out, "{engine}");
    if !report.graded {
        if let Some(b) = report.profile.builtin.map(|b| b.builtin()) {
            let _ = writeln!(out, "{} — {}", b.title(), b.description());
        }
    }
}

/// The card's link with the ceiling it implies, and for SD and eMMC whether the host queues
/// commands.
fn write_card_link(out: &mut String, report: &Report) {
    let Some(card) = &report.card else {
        return;
    };
    if let Some(link) = &card.link {
        let _ = writeln!(
            out,
            "{}",
            fill(
                &gettext("Link: {link} ({basis})"),
                &[
                    ("link", &crate::card::link::describe(link)),
                    ("basis", &link.basis)
                ],
            )
        );
    }
    if let Some(q) = &card.command_queueing {
        let _ = writeln!(
            out,
            "{}",
            fill(
                &gettext("Command queueing: {queueing}"),
                &[("queueing", &q.describe())],
            )
        );
    }
    if let Some(quirk) = card.cid.as_ref().and_then(crate::card::cqe_quirk) {
        let _ = writeln!(out, "{}", quirk.describe());
    }
}

/// One run: a blank line, its title, upstream's lines, why figures were not graded (each
/// reason once), a table row per phase and the run's A1/A2 verdicts.
fn write_run(out: &mut String, run: &RunReport, verbose: bool) {
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", fill(&gettext("Run {run}"), &[("run", &run.run)]));
    // Upstream's lines and the A1/A2 verdicts belong to a graded run only.
    let graded = !run.checks.is_empty() || run.verdict != Verdict::NotGraded;
    if graded {
        for line in compat_lines(run) {
            let _ = writeln!(out, "{line}");
        }
    }
    let mut reasons: Vec<&str> = Vec::new();
    for c in &run.checks {
        if let Some(r) = c.reason.as_deref() {
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
    }
    for r in reasons {
        let _ = writeln!(
            out,
            "{}",
            // Translators: {reason} says why a measured figure is not graded.
            fill(&gettext("Not graded: {reason}"), &[("reason", &r)])
        );
    }
    let name_width = run
        .phases
        .iter()
        .map(|p| visible(&p.name).chars().count())
        .max()
        .unwrap_or(0)
        .max(14);
    for p in &run.phases {
        let _ = writeln!(
            out,
            "  {:<name_width$} {:>9} MB/s  {:>9} IOPS  p99 {:>9} µs",
            visible(&p.name),
            down_text(crate::units::mb_per_s(p.bw_bytes), 2),
            down_text(p.iops, 0),
            number(p.lat_us.p99, 0),
        );
        if let Some(io) = p.device_io.as_deref().filter(|_| verbose) {
            let _ = writeln!(out, "  {:<name_width$} {}", "", device_line(io));
        }
    }
    if !graded {
        return;
    }
    let _ = writeln!(
        out,
        "{}",
        fill(
            &gettext("A1: {a1}   A2: {a2}"),
            &[
                ("a1", &run.verdict.as_str()),
                ("a2", &run.a2_verdict.as_str())
            ]
        )
    );
}

/// What a phase's block device did, for people: bytes in MiB and requests each way, and the
/// most requests in flight where they were looked at.
fn device_line(io: &crate::engine::device_io::DeviceIo) -> String {
    let mib = |b: u64| number(crate::units::mib(b), 1);
    let mut line = fill(
        // Translators: {device} is a block device's name such as mmcblk0p2; MiB with one
        // decimal; requests as the kernel counts them after merging.
        &gettext("{device}: read {read_mib} MiB in {reads} requests, wrote {written_mib} MiB in {writes} requests"),
        &[
            ("device", &visible(&io.device)),
            ("read_mib", &mib(io.read_bytes)),
            ("reads", &io.reads),
            ("written_mib", &mib(io.written_bytes)),
            ("writes", &io.writes),
        ],
    );
    if let Some(max) = io.in_flight_max {
        line.push_str(&fill(
            &gettext(", at most {in_flight} in flight"),
            &[("in_flight", &max)],
        ));
    }
    line
}

/// The error (with its whole text when shortened), the warnings and the card's findings.
fn write_notes(out: &mut String, report: &Report) {
    if let Some(e) = &report.error {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Error: {message}"), &[("message", &e.message)])
        );
        if let Some(details) = &e.details {
            let _ = writeln!(
                out,
                "{}",
                // Translators: the whole text of an error message shortened on the line above.
                fill(&gettext("Details: {details}"), &[("details", details)])
            );
        }
    }
    for w in &report.warnings {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Warning: {warning}"), &[("warning", w)])
        );
    }
    for f in &report.findings {
        let _ = writeln!(
            out,
            "{}",
            // Translators: a comparison of the card's claimed ratings with the measurement.
            fill(&gettext("Finding: {finding}"), &[("finding", &f.text())])
        );
    }
}

/// The overall verdict (marked as a reference on a drive that is not an SD card) and the
/// advice, one bullet each.
fn write_result(out: &mut String, report: &Report) {
    let verdict = if report.verdict == Verdict::NotGraded {
        gettext("measured, not graded (only the standard test is graded against A1 and A2)")
    } else if report.sd_graded || report.verdict == Verdict::Error {
        report.verdict.as_str().to_owned()
    } else {
        fill(
            // Translators: the verdict on a drive that is not an SD card; SD targets are a reference.
            &gettext("{verdict} (SD card targets, for reference)"),
            &[("verdict", &report.verdict.as_str())],
        )
    };
    let _ = writeln!(
        out,
        "{}",
        fill(&gettext("Result: {verdict}"), &[("verdict", &verdict)])
    );
    for a in &report.advice {
        let _ = writeln!(out, "• {}", a.text());
    }
}
