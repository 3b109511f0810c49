//! The **Health** group, for the SD Card page's chosen drive and a drive's page in History:
//! the verdict (healthy, worn, failing, unknown) with what to do and, when unknown, why; the
//! errors the kernel logged about the drive since boot, counted by kind; the card's own wear
//! where it reports it (an eMMC's life estimates, an SD card's CMD56 report, which only root
//! may read: the row says so); and its speed against its first tests in the history. The
//! look at the drive runs on a helper thread ([`crate::model::health_worker`]); a drive of the
//! history that is not connected shows what its runs say.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;

use adw::prelude::*;
use agnostics_core::health::verdict::HealthVerdict;
use agnostics_core::health::HealthReport;
use agnostics_core::i18n::{fill, gettext};
use gtk::{gio, glib};

use super::results_rows::{advice_row, fact_row, group};
use crate::model::health_worker::{self, HealthState, HistoryHealth};

/// The group and what it shows. Clones share the group.
#[derive(Debug, Clone)]
pub struct HealthGroup {
    /// The group to append to a page.
    pub group: adw::PreferencesGroup,
    inner: Rc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    rows: RefCell<Vec<adw::ActionRow>>,
    state: RefCell<Option<HealthState>>,
    /// Counts the looks started: a late answer about an earlier drive is dropped.
    generation: Cell<u64>,
    /// The folder of the look running or shown.
    folder: RefCell<Option<PathBuf>>,
}

impl Default for HealthGroup {
    fn default() -> Self {
        HealthGroup::new()
    }
}

impl HealthGroup {
    /// An empty group titled **Health**.
    pub fn new() -> HealthGroup {
        let group = group(
            &gettext("Health"),
            Some(&gettext(
                "How worn the drive is, from what the system saw of it since it started, what the card says of itself and its speed against its first tests. Nothing is written.",
            )),
        );
        HealthGroup {
            group,
            inner: Rc::default(),
        }
    }

    /// What the group shows; `None` before the first look.
    pub fn state(&self) -> Option<HealthState> {
        self.inner.state.borrow().clone()
    }

    /// True while a look at a drive runs.
    pub fn is_checking(&self) -> bool {
        matches!(*self.inner.state.borrow(), Some(HealthState::Checking))
    }

    /// The rows shown, as (title, subtitle), in order.
    pub fn rows(&self) -> Vec<(String, String)> {
        self.inner
            .rows
            .borrow()
            .iter()
            .map(|r| {
                let subtitle = r.subtitle().map(|s| s.to_string()).unwrap_or_default();
                (r.title().to_string(), subtitle)
            })
            .collect()
    }

    /// The rows' widgets, in order.
    pub fn row_widgets(&self) -> Vec<adw::ActionRow> {
        self.inner.rows.borrow().clone()
    }

    /// Looks at the drive holding `dir` on a helper thread (sysfs under `sysfs_root`, the
    /// history at `history`) and shows what it found; nothing new when that folder is being
    /// looked at already.
    pub fn check_folder(&self, dir: PathBuf, sysfs_root: PathBuf, history: PathBuf) {
        if self.is_checking() && self.inner.folder.borrow().as_ref() == Some(&dir) {
            return;
        }
        let generation = self.next_generation();
        self.inner.folder.replace(Some(dir.clone()));
        self.show(HealthState::Checking);
        let looking =
            gio::spawn_blocking(move || health_worker::check_folder(&dir, &sysfs_root, &history));
        let this = self.clone();
        glib::spawn_future_local(async move {
            let state = match looking.await {
                Ok(Ok(report)) => HealthState::Checked(Box::new(report)),
                Ok(Err(e)) => HealthState::Failed(e),
                Err(_) => {
                    HealthState::Failed(gettext("The look at the drive stopped unexpectedly"))
                }
            };
            if this.inner.generation.get() == generation {
                this.show(state);
            }
        });
    }

    /// Shows what the history alone says of a drive that is not connected.
    pub fn show_not_connected(&self, health: HistoryHealth) {
        self.next_generation();
        self.inner.folder.replace(None);
        self.show(HealthState::NotConnected(health));
    }

    fn next_generation(&self) -> u64 {
        let generation = self.inner.generation.get() + 1;
        self.inner.generation.set(generation);
        generation
    }

    /// Replaces the rows with those of `state`.
    fn show(&self, state: HealthState) {
        for row in self.inner.rows.take() {
            self.group.remove(&row);
        }
        let rows = match &state {
            HealthState::Checking => vec![checking_row()],
            HealthState::Checked(report) => report_rows(report),
            HealthState::NotConnected(health) => not_connected_rows(health),
            HealthState::Failed(why) => vec![advice_row(why, "agnostics-warning-symbolic")],
        };
        for row in &rows {
            self.group.add(row);
        }
        self.inner.rows.replace(rows);
        self.inner.state.replace(Some(state));
    }
}

fn checking_row() -> adw::ActionRow {
    let row = fact_row(
        &gettext("Health"),
        &gettext("Looking at the drive (a few seconds)…"),
    );
    let spinner = gtk::Spinner::new();
    spinner.start();
    spinner.set_valign(gtk::Align::Center);
    row.add_suffix(&spinner);
    row
}

/// The verdict's row: the verdict, what to do and, when unknown, `why`.
fn verdict_row(verdict: HealthVerdict, why: Option<String>) -> adw::ActionRow {
    let mut text = verdict.advice();
    if let Some(why) = why.filter(|_| verdict == HealthVerdict::Unknown) {
        text = format!(
            "{}\n{text}",
            fill(&gettext("Unknown because {why}."), &[("why", &why)])
        );
    }
    let title = fill(
        &gettext("Health: {verdict}"),
        &[("verdict", &verdict.word())],
    );
    let row = fact_row(&title, &text);
    row.set_subtitle_lines(0);
    row.set_title_lines(0);
    let icon = match verdict {
        HealthVerdict::Healthy => "agnostics-check-symbolic",
        HealthVerdict::Worn => "agnostics-warning-symbolic",
        HealthVerdict::Failing => "agnostics-error-symbolic",
        HealthVerdict::Unknown => "agnostics-info-symbolic",
    };
    let image = gtk::Image::builder()
        .icon_name(icon)
        .valign(gtk::Align::Center)
        .accessible_role(gtk::AccessibleRole::Presentation)
        .build();
    match verdict {
        HealthVerdict::Worn => image.add_css_class("warning"),
        HealthVerdict::Failing => image.add_css_class("error"),
        HealthVerdict::Healthy => image.add_css_class("success"),
        HealthVerdict::Unknown => {}
    }
    row.add_prefix(&image);
    row
}

/// A fact row whose value may take several lines.
fn wrapped(title: &str, value: &str) -> adw::ActionRow {
    let row = fact_row(title, value);
    row.set_subtitle_lines(0);
    row.set_title_lines(0);
    row
}

fn report_rows(r: &HealthReport) -> Vec<adw::ActionRow> {
    let own = match &r.emmc_wear {
        Some(w) => w.describe(),
        None => r.sd_health.describe(),
    };
    let errors = kernel_text(r);
    let speed = speed_text(r.trend.as_ref(), r.history_runs);
    let first_line = |t: &str| t.lines().next().unwrap_or_default().to_owned();
    let why = [own.clone(), first_line(&errors), first_line(&speed)].join("; ");
    let mut rows = vec![
        verdict_row(r.verdict, Some(why)),
        wrapped(&errors_title(r), &errors),
        wrapped(&gettext("The card's own wear report"), &own),
        wrapped(&gettext("Speed against its first tests"), &speed),
    ];
    for finding in &r.findings {
        rows.push(advice_row(&finding.text, "agnostics-warning-symbolic"));
    }
    rows
}

/// The kernel log row's title: counted since the drive appeared (the kernel's announcement of
/// it was in the log) or since the system started.
fn errors_title(r: &HealthReport) -> String {
    if r.kernel_log.counted_from.is_some() {
        gettext("Errors since the drive appeared")
    } else {
        gettext("Errors since the system started")
    }
}

/// The kernel log's counts for the drive, or why it could not be read.
fn kernel_text(r: &HealthReport) -> String {
    let k = &r.kernel_log;
    if !k.readable {
        return k.reason.clone().unwrap_or_default();
    }
    let c = &k.counts;
    let total = c.read_only_remounts
        + c.fs_errors
        + c.io_errors
        + c.cqe_recoveries
        + c.timeouts
        + c.mmc_errors;
    let mut text = if total == 0 && k.counted_from.is_some() {
        gettext("no errors seen since the drive appeared")
    } else if total == 0 {
        gettext("no errors seen since the system started")
    } else {
        fill(
            &gettext("MMC errors: {mmc}, timeouts: {timeouts}, command-queue recoveries: {cqe}, I/O errors: {io}, file-system errors: {fs}, read-only remounts: {ro}"),
            &[
                ("mmc", &c.mmc_errors),
                ("timeouts", &c.timeouts),
                ("cqe", &c.cqe_recoveries),
                ("io", &c.io_errors),
                ("fs", &c.fs_errors),
                ("ro", &c.read_only_remounts),
            ],
        )
    };
    if !k.from_boot && k.counted_from.is_none() {
        text.push('\n');
        text.push_str(&gettext(
            "(the oldest messages since boot are no longer in the log)",
        ));
    }
    text
}

/// The trend's lines, or that there is nothing to compare with.
fn speed_text(trend: Option<&agnostics_core::health::trend::SpeedTrend>, runs: u32) -> String {
    match trend {
        Some(t) => t.describe().join("\n"),
        None => fill(
            &gettext("no earlier test of this drive to compare with ({runs} in the history)"),
            &[("runs", &runs)],
        ),
    }
}

fn not_connected_rows(h: &HistoryHealth) -> Vec<adw::ActionRow> {
    let absent = gettext("the drive is not connected: what the system saw of it and its own wear report are read when it is");
    let speed = speed_text(h.trend.as_ref(), h.runs);
    let mut rows = vec![
        verdict_row(h.verdict, Some(absent.clone())),
        wrapped(&gettext("Speed against its first tests"), &speed),
    ];
    if h.verdict != HealthVerdict::Unknown {
        rows.push(advice_row(
            &gettext("This drive is not connected: what the system saw of it and its own wear report are read when it is."),
            "agnostics-info-symbolic",
        ));
    }
    rows
}
