//! The results of the `matrix` and `qd1` profiles in the form their users know: a
//! CrystalDiskMark-style table (a row per test, Read and Write side by side) and the table of
//! Jeff Geerling's and PiBenchmarks' published figures (a row per figure). [`table`] builds it
//! from a report's phases; the CLI text ([`to_text`]), the JSON (`table`), the Markdown
//! ([`to_markdown`]) and the desktop app all show that one value.

use serde::{Deserialize, Serialize};

use super::safe::visible;
use super::Report;
use crate::engine::PhaseResult;
use crate::figure::down_text;
use crate::i18n::{gettext, gettext_noop};

/// One measured figure of a table: the job it comes from, MB/s (10^6 bytes per second) and
/// IOPS, as measured (the forms round them down when shown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The fio job name, e.g. `seq1m-q8t1-read`.
    pub job: String,
    /// Bandwidth, MB/s.
    pub mb_per_s: f64,
    /// I/O operations per second.
    pub iops: f64,
}

/// A row of the CrystalDiskMark table: the test (`SEQ1M Q8T1`) and its read and write
/// figures; `None` where the job did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixRow {
    /// CrystalDiskMark's name of the test, e.g. `RND4K Q32T1`.
    pub test: String,
    /// The reading job's figures.
    pub read: Option<Cell>,
    /// The writing job's figures.
    pub write: Option<Cell>,
}

/// A row of the queue-depth-1 table: the figure as the published tables name it (English,
/// e.g. `4K random read`; [`Qd1Row::label`] translates it) and its values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Qd1Row {
    /// The published name, e.g. `1M sequential write`.
    pub test: String,
    /// The figures; `None` where the job did not run.
    pub result: Option<Cell>,
}

/// A profile's results table. JSON: `{"form": "matrix", "rows": [{"test", "read", "write"}]}`
/// or `{"form": "qd1", "rows": [{"test", "result"}]}`, each cell `{"job", "mb_per_s",
/// "iops"}` or null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum ResultTable {
    /// The `matrix` profile's CrystalDiskMark table.
    Matrix {
        /// SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1.
        rows: Vec<MatrixRow>,
    },
    /// The `qd1` profile's table.
    Qd1 {
        /// 1M sequential read, 1M sequential write, 4K random read, 4K random write.
        rows: Vec<Qd1Row>,
    },
}

/// The CrystalDiskMark rows: the test's name and the stem of its two jobs
/// (`<stem>-read`, `<stem>-write`), as `data/profiles/matrix.fio` names them.
const MATRIX: [(&str, &str); 4] = [
    ("SEQ1M Q8T1", "seq1m-q8t1"),
    ("SEQ1M Q1T1", "seq1m-q1t1"),
    ("RND4K Q32T1", "rnd4k-q32t1"),
    ("RND4K Q1T1", "rnd4k-q1t1"),
];

/// The queue-depth-1 rows: the published name and the job of `data/profiles/qd1.fio`.
const QD1: [(&str, &str); 4] = [
    (gettext_noop("1M sequential read"), "seq-read-1m-qd1"),
    (gettext_noop("1M sequential write"), "seq-write-1m-qd1"),
    (gettext_noop("4K random read"), "rand-4k-read-qd1"),
    (gettext_noop("4K random write"), "rand-4k-write-qd1"),
];

impl Qd1Row {
    /// The row's name for people, translated.
    pub fn label(&self) -> String {
        gettext(&self.test)
    }
}

/// The table of the report's last run, chosen by its job names: the CrystalDiskMark table
/// when a phase of `matrix.fio` ran, the queue-depth-1 table when one of `qd1.fio` did; `None`
/// for other profiles (the standard test's form is its checks) or when nothing was measured.
pub fn table(report: &Report) -> Option<ResultTable> {
    let phases = &report.runs.last()?.phases;
    let cell = |job: &str| -> Option<Cell> {
        phases
            .iter()
            .find(|p| p.name == job)
            .map(|p: &PhaseResult| Cell {
                job: p.name.clone(),
                mb_per_s: crate::units::mb_per_s(p.bw_bytes),
                iops: p.iops,
            })
    };
    let matrix: Vec<MatrixRow> = MATRIX
        .iter()
        .map(|(test, stem)| MatrixRow {
            test: (*test).to_owned(),
            read: cell(&format!("{stem}-read")),
            write: cell(&format!("{stem}-write")),
        })
        .collect();
    if matrix.iter().any(|r| r.read.is_some() || r.write.is_some()) {
        return Some(ResultTable::Matrix { rows: matrix });
    }
    let qd1: Vec<Qd1Row> = QD1
        .iter()
        .map(|(test, job)| Qd1Row {
            test: (*test).to_owned(),
            result: cell(job),
        })
        .collect();
    qd1.iter()
        .any(|r| r.result.is_some())
        .then_some(ResultTable::Qd1 { rows: qd1 })
}

/// MB/s as the tables show it: rounded down to two decimals; `—` for a missing figure.
pub fn mb_text(cell: Option<&Cell>) -> String {
    cell.map(|c| format!("{} MB/s", down_text(c.mb_per_s, 2)))
        .unwrap_or_else(|| "—".into())
}

/// IOPS as the tables show it: a whole number rounded down; `—` for a missing figure.
pub fn iops_text(cell: Option<&Cell>) -> String {
    cell.map(|c| format!("{} IOPS", down_text(c.iops, 0)))
        .unwrap_or_else(|| "—".into())
}

/// The header and body of the table as cells of text, the same in every form (text,
/// Markdown, the desktop app): the first cell of each line names the row, the others are
/// figures (for the matrix, a line of MB/s then a line of IOPS under it).
pub fn grid(table: &ResultTable) -> (Vec<String>, Vec<Vec<String>>) {
    match table {
        ResultTable::Matrix { rows } => (
            vec![String::new(), gettext("Read"), gettext("Write")],
            rows.iter()
                .flat_map(|r| {
                    [
                        vec![
                            r.test.clone(),
                            mb_text(r.read.as_ref()),
                            mb_text(r.write.as_ref()),
                        ],
                        vec![
                            String::new(),
                            iops_text(r.read.as_ref()),
                            iops_text(r.write.as_ref()),
                        ],
                    ]
                })
                .collect(),
        ),
        ResultTable::Qd1 { rows } => (
            vec![gettext("Test"), "MB/s".into(), "IOPS".into()],
            rows.iter()
                .map(|r| {
                    let c = r.result.as_ref();
                    vec![
                        r.label(),
                        c.map(|c| down_text(c.mb_per_s, 2))
                            .unwrap_or_else(|| "—".into()),
                        c.map(|c| down_text(c.iops, 0))
                            .unwrap_or_else(|| "—".into()),
                    ]
                })
                .collect(),
        ),
    }
}

/// The table in plain text, columns aligned, figures right-aligned (one line per row, a
/// header first; the matrix shows IOPS on the line under each test's MB/s).
pub fn to_text(table: &ResultTable) -> String {
    let (head, body) = grid(table);
    let width = |i: usize| {
        std::iter::once(&head)
            .chain(&body)
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..head.len()).map(width).collect();
    let mut out = String::new();
    for row in std::iter::once(&head).chain(&body) {
        let mut line = format!("  {:<w$}", row[0], w = widths[0]);
        for (i, cell) in row.iter().enumerate().skip(1) {
            line.push_str(&format!("  {:>w$}", cell, w = widths[i]));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The jobs of the deciding run as a grid (job, MB/s, IOPS): the Markdown of profiles
/// without a table of their own.
fn jobs_grid(report: &Report) -> (Vec<String>, Vec<Vec<String>>) {
    let body = report
        .deciding_run()
        .map(|run| {
            run.phases
                .iter()
                .map(|p| {
                    vec![
                        visible(&p.name),
                        down_text(crate::units::mb_per_s(p.bw_bytes), 2),
                        down_text(p.iops, 0),
                    ]
                })
                .collect()
        })
        .unwrap_or_default();
    (vec![gettext("Job"), "MB/s".into(), "IOPS".into()], body)
}

/// The report in Markdown for a forum post, its drive named as the report knows it (model and
/// kind, see [`to_markdown_named`]).
pub fn to_markdown(report: &Report) -> String {
    to_markdown_named(report, None)
}

/// The report in Markdown for a forum post: a title line with the program and its version,
/// the profile, the I/O path and the file size; a line with the drive (`drive_name`, the name
/// the person gave it in the history, else its model and kind; never a serial number or a
/// path) and the date and time the run started (as recorded, to the second); then a pipe
/// table: the profile's [`ResultTable`], or the deciding run's jobs; then, for a graded run,
/// the A1/A2 verdicts, and for an error, the error.
pub fn to_markdown_named(report: &Report, drive_name: Option<&str>) -> String {
    let (head, body) = match &report.table {
        Some(table) => grid(table),
        None => jobs_grid(report),
    };
    let mut out = String::new();
    let engine = report
        .io_path
        .as_ref()
        .map(|p| p.to_string())
        .unwrap_or_else(|| report.engine.as_str().to_owned());
    out.push_str(&format!(
        "**{} {}** ({engine}, {})\n\n",
        escape(&report.program),
        escape(&report.profile.name),
        crate::units::human_bytes(report.profile.size_bytes),
    ));
    let drive = drive_name
        .map(str::to_owned)
        .unwrap_or_else(|| super::drive_label(report));
    out.push_str(&format!(
        "{}\n\n",
        escape(&crate::i18n::fill(
            // Translators: the line under a Markdown report's title, e.g. "Drive: Kitchen Pi
            // card; tested 2026-12-02 05:15:07".
            &gettext("Drive: {drive}; tested {date}"),
            &[
                ("drive", &visible(&drive)),
                ("date", &started_text(&report.started))
            ],
        ))
    ));
    out.push_str(&pipe_table(&head, &body));
    if let Some(e) = &report.error {
        out.push_str(&format!(
            "\n{}\n",
            escape(&crate::i18n::fill(
                &gettext("Error: {message}"),
                &[("message", &super::without_home(&e.message))]
            ))
        ));
    } else if report.graded && !report.runs.is_empty() {
        let grades = crate::i18n::fill(
            &gettext("A1: {a1}   A2: {a2}"),
            &[
                ("a1", &report.verdict.as_str()),
                ("a2", &report.a2_verdict.as_str()),
            ],
        );
        // A drive that is not an SD card is graded against the SD targets for reference only:
        // a pasted table must not read as an SD card's grade.
        let grades = if report.sd_graded {
            grades
        } else {
            crate::i18n::fill(
                &gettext("{verdict} (SD card targets, for reference)"),
                &[("verdict", &grades)],
            )
        };
        out.push_str(&format!("\n{grades}\n"));
    }
    out
}

/// `head` and `body` as a Markdown pipe table, the first column left-aligned and the others
/// (the figures) right-aligned.
fn pipe_table(head: &[String], body: &[Vec<String>]) -> String {
    let mut out = String::new();
    let line = |cells: &[String]| {
        format!(
            "| {} |\n",
            cells
                .iter()
                .map(|c| escape(c))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    };
    out.push_str(&line(head));
    out.push_str(&format!(
        "|{}\n",
        head.iter()
            .enumerate()
            .map(|(i, _)| if i == 0 { " --- |" } else { " ---: |" })
            .collect::<String>()
    ));
    for row in body {
        out.push_str(&line(row));
    }
    out
}

/// An RFC 3339 time as people read it, to the second in the offset it was recorded in
/// (`2026-12-02T05:15:07+01:00` → `2026-12-02 05:15:07`); the text itself when it is not one.
fn started_text(started: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(started)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|_| visible(started))
}

/// Text made safe in a Markdown table cell: `|`, `*`, `_`, `` ` `` and `\` escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '|' | '*' | '_' | '`' | '\\' | '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineKind;
    use crate::report::{ProfileInfo, RunReport, TargetReport};
    use crate::target_dir::Transport;

    /// A measured `qd1` run of a USB stick, started at 05:15:07 in UTC+1.
    fn qd1_report() -> Report {
        let profile = ProfileInfo {
            name: "qd1".into(),
            source: None,
            size_bytes: 256 << 20,
        };
        let mut report = Report::new(EngineKind::Native, profile, Vec::new());
        report.program = "agnostics 1.2.3".into();
        report.started = "2026-12-02T05:15:07+01:00".into();
        report.target = Some(TargetReport {
            path: "/media/pi/STICK".into(),
            device: Some("sda".into()),
            partition: None,
            transport: Transport::Usb,
            fs_type: "vfat".into(),
            model: Some("Ultra Fit".into()),
            free_bytes: 0,
        });
        let phase = crate::sample::phase("seq-read-1m-qd1")
            .bw_bytes(40e6)
            .iops(38.0)
            .build();
        report.runs = vec![RunReport::measured(1, vec![phase])];
        report.graded = false;
        report.table = table(&report);
        report
    }

    #[test]
    fn the_markdown_names_the_drive_the_date_the_profile_and_the_version() {
        let report = qd1_report();
        let head = |md: &str| md.lines().take(3).collect::<Vec<_>>().join("\n");
        assert_eq!(
            head(&to_markdown(&report)),
            "**agnostics 1.2.3 qd1** (native, 256 MiB)\n\n\
             Drive: Ultra Fit (USB); tested 2026-12-02 05:15:07"
        );
        assert_eq!(
            head(&to_markdown_named(&report, Some("Kitchen *Pi* card"))),
            "**agnostics 1.2.3 qd1** (native, 256 MiB)\n\n\
             Drive: Kitchen \\*Pi\\* card; tested 2026-12-02 05:15:07"
        );
        assert!(to_markdown(&report).contains("| 1M sequential read | 40.00 | 38 |"));
    }
}
