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

/// Writes `report` to `path` in `format`; `drive_name` is the name the person gave the drive
/// in the history (the Markdown names the drive with it); `card` is the widget a PNG shows
/// (it must be shown on screen). JSON and Markdown have no serial numbers ([`Report::redacted`]).
///
/// Errors: the file could not be written (the error says which and why), or the card could
/// not be drawn.
pub fn write_report(
    report: &Report,
    drive_name: Option<&str>,
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
            let text = report::table::to_markdown_named(&report.redacted(), drive_name);
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

/// Asks where to save `report` (a save dialog with the three forms) and saves it, its drive
/// called `drive_name` (see [`write_report`]); `done` gets
/// the file written, or the error. The caller keeps the returned dialog until it answers.
///
/// The form: an extension the person typed decides it (`notes.md` is Markdown whatever the
/// filter); otherwise the chosen filter does, and the name offered follows the filter as it
/// changes (`….json` becomes `….md` when **Markdown report** is chosen).
pub fn ask_and_save(
    parent: &impl IsA<gtk::Window>,
    report: Report,
    drive_name: Option<String>,
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
    // The name as offered: while the file's name is still this, the filter decides the form.
    let offered = std::rc::Rc::new(std::cell::RefCell::new(suggested_name(
        &report,
        ReportFormat::Json,
    )));
    chooser.set_current_name(&offered.borrow());
    if let Some(docs) = glib::user_special_dir(glib::UserDirectory::Documents) {
        let _ = chooser.set_current_folder(Some(&gio::File::for_path(docs)));
    }
    let format_of = {
        let filters = filters.clone();
        move |chooser: &gtk::FileChooserNative| {
            chooser
                .filter()
                .and_then(|f| filters.iter().position(|g| *g == f))
                .map_or(ReportFormat::Json, |i| ReportFormat::ALL[i])
        }
    };
    chooser.connect_filter_notify(glib::clone!(
        #[strong]
        offered,
        #[strong]
        format_of,
        #[strong]
        report,
        move |chooser| {
            let shown = chooser.current_name().map(|n| n.to_string());
            // A name the person typed is theirs; only the name offered follows the filter.
            if shown.is_none() || shown.as_deref() == Some(offered.borrow().as_str()) {
                let name = suggested_name(&report, format_of(chooser));
                chooser.set_current_name(&name);
                offered.replace(name);
            }
        }
    ));
    chooser.connect_response(move |chooser, response| {
        if response != gtk::ResponseType::Accept {
            return;
        }
        let Some(path) = chooser.file().and_then(|f| f.path()) else {
            return;
        };
        let as_offered = path.file_name().and_then(|n| n.to_str()) == Some(&*offered.borrow());
        let (format, path) = chosen_form(path, format_of(chooser), as_offered);
        done(write_report(&report, drive_name.as_deref(), format, &path, &card).map(|()| path));
    });
    chooser.show();
    chooser
}

/// The form and the file for `path`, picked with the filter `chosen`: the extension decides,
/// unless the name is the one offered (`as_offered`: then the filter does) or has no known
/// extension (then the filter's is added).
pub fn chosen_form(
    mut path: PathBuf,
    chosen: ReportFormat,
    as_offered: bool,
) -> (ReportFormat, PathBuf) {
    match ReportFormat::from_path(&path) {
        Some(format) if !as_offered => (format, path),
        _ => {
            if ReportFormat::from_path(&path).is_some() {
                path.set_extension(chosen.extension());
            } else {
                // "report" or "report.v2": the filter's extension is added, nothing replaced.
                let mut name = path.file_name().unwrap_or_default().to_os_string();
                name.push(".");
                name.push(chosen.extension());
                path.set_file_name(name);
            }
            (chosen, path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(name: &str, chosen: ReportFormat, as_offered: bool) -> (ReportFormat, String) {
        let (format, path) = chosen_form(PathBuf::from("/d").join(name), chosen, as_offered);
        (
            format,
            path.file_name().unwrap().to_str().unwrap().to_owned(),
        )
    }

    #[test]
    fn the_offered_name_yields_to_the_filter_and_a_typed_extension_wins() {
        use ReportFormat::*;
        // The name offered, the Markdown filter picked (as a portal reports it at the end).
        assert_eq!(
            form("agnostics-2026-12-02-0515.json", Markdown, true),
            (Markdown, "agnostics-2026-12-02-0515.md".to_owned())
        );
        // A name the person typed keeps its form, whatever the filter.
        assert_eq!(
            form("card.json", Markdown, false),
            (Json, "card.json".to_owned())
        );
        assert_eq!(
            form("card.MD", Png, false),
            (Markdown, "card.MD".to_owned())
        );
        // No known extension: the filter's is added, nothing of the name replaced.
        assert_eq!(form("card", Png, false), (Png, "card.png".to_owned()));
        assert_eq!(
            form("card.v2", Markdown, false),
            (Markdown, "card.v2.md".to_owned())
        );
    }
}
