//! **Save report**: a results page (the last test's or a stored run's) as a file, in one of
//! three forms: the JSON report, the Markdown report for a forum post, or a PNG picture of the
//! results card as shown. None of them holds a serial number: the JSON is the report
//! redacted the way the history stores it, the Markdown names the model only, and the picture
//! shows what the page shows (which has no serials).

use std::path::{Path, PathBuf};

use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::{self, Report};
use gtk::prelude::*;
use gtk::{gdk, gio, glib, graphene};

/// The forms a report can be saved in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The whole report as JSON (the CLI's `--json` shape), without serial numbers.
    Json,
    /// The Markdown summary (a title line and a table).
    Markdown,
    /// A PNG picture of the results card.
    Png,
}

impl ReportFormat {
    /// All forms, in the order the save dialog offers them.
    pub const ALL: [ReportFormat; 3] = [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Png,
    ];

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ReportFormat::Json => "json",
            ReportFormat::Markdown => "md",
            ReportFormat::Png => "png",
        }
    }

    /// The form a file name asks for by its extension (case does not matter).
    pub fn from_path(path: &Path) -> Option<ReportFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(ReportFormat::Json),
            "md" | "markdown" => Some(ReportFormat::Markdown),
            "png" => Some(ReportFormat::Png),
            _ => None,
        }
    }

    /// The name of the dialog's filter for this form.
    pub fn filter_name(self) -> String {
        match self {
            ReportFormat::Json => gettext("JSON report (.json)"),
            ReportFormat::Markdown => gettext("Markdown report (.md)"),
            ReportFormat::Png => gettext("Picture of the results (.png)"),
        }
    }

    fn filter(self) -> gtk::FileFilter {
        let filter = gtk::FileFilter::new();
        filter.set_name(Some(&self.filter_name()));
        filter.add_suffix(self.extension());
        filter
    }
}

/// The file name offered for `report`: `agnostics-YYYY-MM-DD-HHMM.EXT` from its start time.
pub fn suggested_name(report: &Report, format: ReportFormat) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(&report.started)
        .map(|t| t.format("%Y-%m-%d-%H%M").to_string())
        .unwrap_or_else(|_| "report".to_owned());
    format!("agnostics-{stamp}.{}", format.extension())
}

/// Writes `report` to `path` in `format`; `card` is the widget a PNG shows (it must be shown
/// on screen). JSON and Markdown have no serial numbers ([`Report::redacted`]).
///
/// Errors: the file could not be written (the error says which and why), or the card could
/// not be drawn.
pub fn write_report(
    report: &Report,
    format: ReportFormat,
    path: &Path,
    card: &gtk::Widget,
) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| {
        fill(
            &gettext("Could not write {path}: {error}"),
            &[("path", &path.display()), ("error", e)],
        )
    };
    match format {
        ReportFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(&report.redacted()).map_err(|e| failed(&e))?;
            text.push('\n');
            std::fs::write(path, text).map_err(|e| failed(&e))
        }
        ReportFormat::Markdown => {
            let text = report::table::to_markdown(&report.redacted());
            std::fs::write(path, text).map_err(|e| failed(&e))
        }
        ReportFormat::Png => render_png(card, path),
    }
}

/// Draws `widget` as it is shown (its whole allocation, also the part scrolled out of view)
/// on the window's background with the window's renderer, and saves it as a PNG.
///
/// Errors: the widget is not shown, or the picture could not be saved.
pub fn render_png(widget: &gtk::Widget, path: &Path) -> Result<(), String> {
    let (width, height) = (widget.width(), widget.height());
    let not_shown = || {
        fill(
            &gettext("Could not draw the results for {path}: they are not shown."),
            &[("path", &path.display())],
        )
    };
    if width <= 0 || height <= 0 {
        return Err(not_shown());
    }
    let renderer = widget
        .native()
        .and_then(|n| n.renderer())
        .ok_or_else(not_shown)?;
    let margin = 16.0_f32;
    let (w, h) = (width as f32 + 2.0 * margin, height as f32 + 2.0 * margin);
    let snapshot = gtk::Snapshot::new();
    #[allow(deprecated)] // StyleContext::lookup_color: the GTK 4.8 way.
    let background = widget
        .style_context()
        .lookup_color("window_bg_color")
        .unwrap_or(gdk::RGBA::WHITE);
    let bounds = graphene::Rect::new(0.0, 0.0, w, h);
    snapshot.append_color(&background, &bounds);
    snapshot.translate(&graphene::Point::new(margin, margin));
    let paintable = gtk::WidgetPaintable::new(Some(widget));
    paintable.snapshot(&snapshot, f64::from(width), f64::from(height));
    let node = snapshot.to_node().ok_or_else(not_shown)?;
    let texture = renderer.render_texture(&node, Some(&bounds));
    texture.save_to_png(path).map_err(|e| {
        fill(
            &gettext("Could not write {path}: {error}"),
            &[("path", &path.display()), ("error", &e)],
        )
    })
}

/// Asks where to save `report` (a save dialog with the three forms; the file name's extension
/// or else the chosen filter decides the form) and saves it; `done` gets the file written,
/// or the error. The caller keeps the returned dialog until it answers.
pub fn ask_and_save(
    parent: &impl IsA<gtk::Window>,
    report: Report,
    card: gtk::Widget,
    done: impl Fn(Result<PathBuf, String>) + 'static,
) -> gtk::FileChooserNative {
    let chooser = gtk::FileChooserNative::new(
        Some(&gettext("Save Report")),
        Some(parent),
        gtk::FileChooserAction::Save,
        Some(&gettext("_Save")),
        Some(&gettext("_Cancel")),
    );
    chooser.set_modal(true);
    let filters: Vec<gtk::FileFilter> = ReportFormat::ALL.iter().map(|f| f.filter()).collect();
    for filter in &filters {
        chooser.add_filter(filter);
    }
    chooser.set_filter(&filters[0]);
    chooser.set_current_name(&suggested_name(&report, ReportFormat::Json));
    if let Some(docs) = glib::user_special_dir(glib::UserDirectory::Documents) {
        let _ = chooser.set_current_folder(Some(&gio::File::for_path(docs)));
    }
    chooser.connect_response(move |chooser, response| {
        if response != gtk::ResponseType::Accept {
            return;
        }
        let Some(mut path) = chooser.file().and_then(|f| f.path()) else {
            return;
        };
        let chosen = chooser
            .filter()
            .and_then(|f| filters.iter().position(|g| *g == f))
            .map(|i| ReportFormat::ALL[i])
            .unwrap_or(ReportFormat::Json);
        let format = match ReportFormat::from_path(&path) {
            Some(format) => format,
            None => {
                path.set_extension(chosen.extension());
                chosen
            }
        };
        done(write_report(&report, format, &path, &card).map(|()| path));
    });
    chooser.show();
    chooser
}
