//! **Save report**: a results page (the last test's or a stored run's) as a file, in one of
//! three forms: the JSON report, the Markdown report for a forum post, or a PNG picture of the
//! results card as shown. None of them holds a serial number: the JSON is the report
//! redacted the way the history stores it, the Markdown names the model only, and the picture
//! shows what the page shows (which has no serials). A stored capacity check is saved the same
//! way, as its JSON, its text (the CLI's words) or a picture of its page.

use std::path::{Path, PathBuf};

use agnostics_core::capacity::{self, CapacityReport};
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
    /// The text the CLI prints (a capacity check's).
    Text,
}

impl ReportFormat {
    /// A run's forms, in the order the save dialog offers them.
    pub const ALL: [ReportFormat; 3] = [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Png,
    ];

    /// A capacity check's forms, in the order the save dialog offers them.
    pub const CHECK: [ReportFormat; 3] =
        [ReportFormat::Json, ReportFormat::Text, ReportFormat::Png];

    /// The file name extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ReportFormat::Json => "json",
            ReportFormat::Markdown => "md",
            ReportFormat::Png => "png",
            ReportFormat::Text => "txt",
        }
    }

    /// The form a file name asks for by its extension (case does not matter).
    pub fn from_path(path: &Path) -> Option<ReportFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(ReportFormat::Json),
            "md" | "markdown" => Some(ReportFormat::Markdown),
            "png" => Some(ReportFormat::Png),
            "txt" => Some(ReportFormat::Text),
            _ => None,
        }
    }

    /// The name of the dialog's filter for this form.
    pub fn filter_name(self) -> String {
        match self {
            ReportFormat::Json => gettext("JSON report (.json)"),
            ReportFormat::Markdown => gettext("Markdown report (.md)"),
            ReportFormat::Png => gettext("Picture of the results (.png)"),
            ReportFormat::Text => gettext("Text report (.txt)"),
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
    name_for(&report.started, "agnostics", format)
}

/// `{prefix}-YYYY-MM-DD-HHMM.EXT` from `started` (RFC 3339; `{prefix}-report.EXT` when it
/// cannot be read).
fn name_for(started: &str, prefix: &str, format: ReportFormat) -> String {
    let stamp = chrono::DateTime::parse_from_rfc3339(started)
        .map(|t| t.format("%Y-%m-%d-%H%M").to_string())
        .unwrap_or_else(|_| "report".to_owned());
    format!("{prefix}-{stamp}.{}", format.extension())
}

/// The file name offered for the capacity check `check`:
/// `agnostics-capacity-YYYY-MM-DD-HHMM.EXT` from its start time.
pub fn suggested_check_name(check: &CapacityReport, format: ReportFormat) -> String {
    name_for(&check.started, "agnostics-capacity", format)
}

/// Writes the capacity check `check` to `path` in `format`: its JSON (the CLI's `--json`
/// shape), its text (what the CLI prints) or a PNG of `page` as shown; Markdown is its text.
///
/// Errors: the file could not be written (the error says which and why), or the page could
/// not be drawn.
pub fn write_check(
    check: &CapacityReport,
    format: ReportFormat,
    path: &Path,
    page: &gtk::Widget,
) -> Result<(), String> {
    let failed = |e: &dyn std::fmt::Display| {
        fill(
            &gettext("Could not write {path}: {error}"),
            &[("path", &path.display()), ("error", e)],
        )
    };
    let text = match format {
        ReportFormat::Png => return render_png(page, path),
        ReportFormat::Json => {
            let mut json = serde_json::to_string_pretty(check).map_err(|e| failed(&e))?;
            json.push('\n');
            json
        }
        ReportFormat::Text | ReportFormat::Markdown => capacity::text::to_text(check),
    };
    std::fs::write(path, text).map_err(|e| failed(&e))
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
        ReportFormat::Text => {
            let text = report::to_text(&report.redacted());
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
    let name_report = report.clone();
    ask_and_write(
        parent,
        &ReportFormat::ALL,
        move |format| suggested_name(&name_report, format),
        move |format, path| write_report(&report, drive_name.as_deref(), format, path, &card),
        done,
    )
}

/// Asks where to save the capacity check `check` (a save dialog with its three forms,
/// [`ReportFormat::CHECK`]) and saves it (see [`write_check`]; `page` is what its picture
/// shows); `done` gets the file written, or the error. The caller keeps the returned dialog
/// until it answers. The form is chosen as [`ask_and_save`] chooses it.
pub fn ask_and_save_check(
    parent: &impl IsA<gtk::Window>,
    check: CapacityReport,
    page: gtk::Widget,
    done: impl Fn(Result<PathBuf, String>) + 'static,
) -> gtk::FileChooserNative {
    let name_check = check.clone();
    ask_and_write(
        parent,
        &ReportFormat::CHECK,
        move |format| suggested_check_name(&name_check, format),
        move |format, path| write_check(&check, format, path, &page),
        done,
    )
}

/// The save dialog offering `forms` (the first chosen), the name `name` gives each form;
/// `write` writes the chosen form to the chosen file, and `done` gets it or the error.
fn ask_and_write(
    parent: &impl IsA<gtk::Window>,
    forms: &'static [ReportFormat],
    name: impl Fn(ReportFormat) -> String + 'static,
    write: impl Fn(ReportFormat, &Path) -> Result<(), String> + 'static,
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
    let filters: Vec<gtk::FileFilter> = forms.iter().map(|f| f.filter()).collect();
    for filter in &filters {
        chooser.add_filter(filter);
    }
    chooser.set_filter(&filters[0]);
    // The name as offered: while the file's name is still this, the filter decides the form.
    let offered = std::rc::Rc::new(std::cell::RefCell::new(name(forms[0])));
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
                .map_or(forms[0], |i| forms[i])
        }
    };
    chooser.connect_filter_notify(glib::clone!(
        #[strong]
        offered,
        #[strong]
        format_of,
        move |chooser| {
            let shown = chooser.current_name().map(|n| n.to_string());
            // A name the person typed is theirs; only the name offered follows the filter.
            if shown.is_none() || shown.as_deref() == Some(offered.borrow().as_str()) {
                let name = name(format_of(chooser));
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
        let (format, path) = chosen_form(path, format_of(chooser), as_offered, forms);
        done(write(format, &path).map(|()| path));
    });
    chooser.show();
    chooser
}

/// The form and the file for `path`, picked with the filter `chosen` among `forms`: the
/// extension decides, unless the name is the one offered (`as_offered`: then the filter does)
/// or has no extension of `forms` (then the filter's is added, or replaces one of the other
/// forms').
pub fn chosen_form(
    mut path: PathBuf,
    chosen: ReportFormat,
    as_offered: bool,
    forms: &[ReportFormat],
) -> (ReportFormat, PathBuf) {
    match ReportFormat::from_path(&path) {
        Some(format) if !as_offered && forms.contains(&format) => (format, path),
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
        let path = PathBuf::from("/d").join(name);
        let (format, path) = chosen_form(path, chosen, as_offered, &ReportFormat::ALL);
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
        // A form not offered here: the filter's form, its extension in place of the other.
        assert_eq!(form("card.txt", Png, false), (Png, "card.png".to_owned()));
    }
}
