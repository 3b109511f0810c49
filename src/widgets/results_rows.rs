//! The rows the results page is made of: a graded check with its badge, advice under it, an
//! ungraded figure, a fact about the test, a run or a standard folded into an expander row.
//! Rows show plain text (markup off), so paths and model names are shown as they are.

use adw::prelude::*;
use agnostics_core::engine::PhaseResult;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::verdict::{Check, Verdict};

use crate::a11y;
use crate::format::{check_summary, check_title, iops, mb_and_kib_per_s, phase_title};
use crate::widgets::Badge;

/// A group with a title and, when given, a description.
pub fn group(title: &str, description: Option<&str>) -> adw::PreferencesGroup {
    let group = adw::PreferencesGroup::new();
    group.set_title(&glib_escape(title));
    if let Some(description) = description {
        group.set_description(Some(&glib_escape(description)));
    }
    group
}

/// PreferencesGroup titles and descriptions are markup in libadwaita 1.2.
fn glib_escape(text: &str) -> String {
    gtk::glib::markup_escape_text(text).to_string()
}

fn plain_row(title: &str, subtitle: Option<&str>) -> adw::ActionRow {
    let row = adw::ActionRow::new();
    row.set_use_markup(false);
    row.set_title(title);
    if let Some(subtitle) = subtitle {
        row.set_subtitle(subtitle);
        // Screen readers get the row's title as its name; its value is its description.
        a11y::set_description(&row, subtitle);
    }
    row
}

/// The description of a row with a badge: its value, then the badge's verdict, e.g.
/// "12.3 MB/s, target 10 MB/s; PASS".
fn value_and_verdict(value: &str, badge: &Badge) -> String {
    fill(
        // Translators: a result row as a screen reader describes it: its value, then its
        // verdict (PASS, FAIL).
        &gettext("{value}; {verdict}"),
        &[("value", &value), ("verdict", &badge.text())],
    )
}

/// A graded check: its name, its value and target, and a PASS/FAIL badge.
pub fn check_row(check: &Check) -> (adw::ActionRow, Badge) {
    let summary = check_summary(check);
    let row = plain_row(&check_title(check.metric), Some(&summary));
    let badge = Badge::new(check.verdict);
    row.add_suffix(&badge);
    a11y::set_description(&row, &value_and_verdict(&summary, &badge));
    (row, badge)
}

/// Advice for people, under the row it explains or among the notes.
pub fn advice_row(text: &str, icon: &str) -> adw::ActionRow {
    marked_row(text, icon, None)
}

/// A line of text with an icon before it, the icon in the style class `class` when given
/// ("warning", "success": the text keeps the page's colour, for contrast).
pub fn marked_row(text: &str, icon: &str, class: Option<&str>) -> adw::ActionRow {
    let row = plain_row(text, None);
    row.set_title_lines(0);
    row.add_css_class("advice");
    let image = gtk::Image::builder()
        .icon_name(icon)
        .valign(gtk::Align::Center)
        .accessible_role(gtk::AccessibleRole::Presentation)
        .build();
    if let Some(class) = class {
        image.add_css_class(class);
    }
    row.add_prefix(&image);
    row
}

/// A measured but ungraded phase (prepare-file, seq-read, or a custom profile's job): its
/// figure, MB/s (with KiB/s) for sequential phases and IOPS for random ones.
pub fn phase_row(phase: &PhaseResult) -> adw::ActionRow {
    let figure = if phase.ios == 0 {
        gettext("not measured")
    } else if phase.rw.is_random() {
        fill(
            &gettext("{iops} ({rate})"),
            &[
                ("iops", &iops(phase.iops)),
                ("rate", &mb_and_kib_per_s(phase.bw_bytes)),
            ],
        )
    } else {
        mb_and_kib_per_s(phase.bw_bytes)
    };
    let row = plain_row(&phase_title(&phase.name, phase.rw, phase.bs), Some(&figure));
    let not_graded = gettext("not graded");
    a11y::set_description(
        &row,
        &fill(
            &gettext("{value}; {verdict}"),
            &[("value", &figure), ("verdict", &not_graded)],
        ),
    );
    let note = gtk::Label::new(Some(&not_graded));
    note.add_css_class("dim-label");
    note.add_css_class("caption");
    row.add_suffix(&note);
    row
}

/// A fact about the test: "Drive", "Folder", … and its value.
pub fn fact_row(title: &str, value: &str) -> adw::ActionRow {
    plain_row(title, Some(value))
}

/// A folded row with a badge: a standard (A2) or a run, whose checks are its children (add
/// them with [`add_check`]).
pub fn expander(title: &str, subtitle: &str, verdict: Verdict) -> (adw::ExpanderRow, Badge) {
    let row = adw::ExpanderRow::new();
    row.set_use_markup(false);
    row.set_title(title);
    row.set_subtitle(subtitle);
    let badge = Badge::new(verdict);
    #[allow(deprecated)] // add_suffix is libadwaita 1.4; add_action is the 1.2 name.
    row.add_action(&badge);
    let description = value_and_verdict(subtitle, &badge);
    // The header inside (an action row) takes the focus and is named by the title; the row
    // around it says its subtitle too, so that the two are not one name twice.
    a11y::set_label(&row, &format!("{title}, {subtitle}"));
    a11y::set_description(&row, &description);
    // The row's header (an action row inside it) is what takes focus and what screen readers
    // read: it gets the same description.
    let mut stack: Vec<gtk::Widget> = row.first_child().into_iter().collect();
    while let Some(widget) = stack.pop() {
        if widget.is::<adw::ActionRow>() {
            a11y::set_description(&widget, &description);
            break;
        }
        stack.extend(widget.next_sibling());
        stack.extend(widget.first_child());
    }
    (row, badge)
}

/// Adds the check `row` to `expander` (titled `title`): its accessible name says which, as
/// the same check also stands in other groups ("Sequential write, Run 2").
pub fn add_check(expander: &adw::ExpanderRow, title: &str, row: &adw::ActionRow) {
    a11y::set_whole_label(row, &format!("{}, {title}", row.title()));
    expander.add_row(row);
}
