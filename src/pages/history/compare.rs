//! The History view's comparison of two stored runs (from one drive or two): both sides
//! (drive, date, profile, the link's ceiling), and per figure both values and the ratio of the
//! right one to the left one, in a table a screen reader reads cell by cell (each figure named
//! with its row, the phase, and its column, the run with its date and verdict; no cell takes a
//! Tab stop); **Copy as Markdown**.

use std::cell::{Cell, RefCell};

use adw::prelude::*;
use agnostics_core::figure::{nearest_text, Unit};
use agnostics_core::history::compare::Side;
use agnostics_core::history::Comparison;
use agnostics_core::i18n::{fill, gettext};
use gtk::glib;
use gtk::subclass::prelude::*;

use super::labels::{date_seconds_text, date_text, profile_title};
use super::layout::{page_box, scrolled, wrapping_top_bar};
use super::{HistoryPage, HistoryView};
use crate::format::{iops, mb_per_s, verdict_text};
use crate::model::history_store;
use crate::widgets::results_rows::group;
use crate::widgets::Badge;

/// The comparison's page: its view and the page its back button leads to.
#[derive(Debug, Default)]
pub struct ComparePage {
    pub(super) view: CompareView,
    /// Where **Back** goes: the page the comparison was opened from.
    pub(super) back: Cell<HistoryPage>,
}

impl HistoryView {
    pub(super) fn build_compare_page(&self) {
        let imp = self.imp();
        let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
        let title = gtk::Label::new(Some(&gettext("Comparison")));
        let copy = gtk::Button::with_mnemonic(&gettext("_Copy as Markdown"));
        let (bar, back) = wrapping_top_bar(&gettext("Back"), &title, &[&copy]);
        back.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.go_back();
            }
        ));
        copy.set_tooltip_text(Some(&gettext(
            "Copy the comparison as a Markdown table, to paste in a forum post",
        )));
        copy.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                if let Some(c) = view.imp().compare.view.comparison() {
                    view.clipboard()
                        .set_text(&agnostics_core::history::compare::comparison_markdown(&c));
                    view.toast(&gettext("Comparison copied"));
                }
            }
        ));
        page.append(&bar);
        page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));
        let content = page_box();
        content.append(&imp.compare.view);
        page.append(&scrolled(&content));
        imp.stack
            .add_named(&page, Some(HistoryPage::Compare.name()));
    }

    /// Compares the stored runs `left` and `right` and shows the comparison.
    pub fn compare(&self, left: &str, right: &str) {
        self.show_comparison(left, right, false);
    }

    /// Compares `left` and `right` (in date order when `by_date`) and shows the comparison.
    pub(super) fn show_comparison(&self, left: &str, right: &str, by_date: bool) {
        let (left, right) = (left.to_owned(), right.to_owned());
        let back = self.visible_page();
        self.background(
            move |path| {
                if by_date {
                    history_store::compare_by_date(path, &left, &right)
                } else {
                    history_store::compare(path, &left, &right)
                }
            },
            move |view, comparison: Result<Comparison, String>| match comparison {
                Ok(c) => {
                    view.imp().compare.view.show(&c);
                    if back != HistoryPage::Compare {
                        view.imp().compare.back.set(back);
                    }
                    view.show(HistoryPage::Compare);
                }
                Err(e) => view.toast(&e),
            },
        );
    }

    /// The comparison page's view.
    pub fn compare_view(&self) -> CompareView {
        self.imp().compare.view.clone()
    }
}

/// A figure in its unit for people: "12.34 MB/s", "612 IOPS", or "—" when not measured.
pub fn figure_text(unit: Unit, value: Option<f64>) -> String {
    match value {
        None => "—".to_owned(),
        Some(v) if unit.is_bandwidth() => mb_per_s(unit.to_phase_figure(v)),
        Some(v) => iops(v),
    }
}

/// A ratio of two figures: "×0.50 (−50 %)"; a fall to under a tenth as a fraction, "1/84
/// (−98.8 %)"; "—" without one.
pub fn ratio_text(ratio: Option<f64>) -> String {
    let Some(ratio) = ratio.filter(|r| r.is_finite()) else {
        return "—".to_owned();
    };
    let change = (ratio - 1.0) * 100.0;
    let sign = if change > 0.05 {
        "+"
    } else if change < -0.05 {
        "−"
    } else {
        "±"
    };
    if ratio > 0.0 && ratio < agnostics_core::history::trend::FRACTION_BELOW {
        // Two decimals would round such a fall to "×0.01 (−99 %)": said as a fraction.
        return fill(
            // Translators: a figure fallen to a fraction of the left one, e.g. "1/84 (−98.8 %)".
            &gettext("1/{factor} (−{change} %)"),
            &[
                ("factor", &nearest_text((1.0 / ratio).round(), 0)),
                ("change", &nearest_text(change.abs(), 1)),
            ],
        );
    }
    fill(
        // Translators: the ratio of the right figure to the left one and the change in per cent,
        // e.g. "×0.50 (−50 %)".
        &gettext("×{ratio} ({sign}{change} %)"),
        &[
            ("ratio", &nearest_text(ratio, 2)),
            ("sign", &sign),
            ("change", &nearest_text(change.abs(), 0)),
        ],
    )
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct CompareView {
        pub cells: RefCell<Vec<Vec<String>>>,
        pub comparison: RefCell<Option<Comparison>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for CompareView {
        const NAME: &'static str = "AgnosticsCompareView";
        type Type = super::CompareView;
        type ParentType = gtk::Box;
    }

    impl ObjectImpl for CompareView {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            obj.set_orientation(gtk::Orientation::Vertical);
            obj.set_spacing(18);
        }
    }
    impl WidgetImpl for CompareView {}
    impl BoxImpl for CompareView {}
}

glib::wrapper! {
    /// Two runs side by side.
    pub struct CompareView(ObjectSubclass<imp::CompareView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for CompareView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl CompareView {
    /// An empty comparison.
    pub fn new() -> CompareView {
        CompareView::default()
    }

    /// Shows `comparison`, replacing what was shown.
    pub fn show(&self, comparison: &Comparison) {
        let imp = self.imp();
        while let Some(child) = self.first_child() {
            self.remove(&child);
        }
        self.append(&sides_group(comparison));
        let figures = group(
            &gettext("Figures"),
            Some(&gettext(
                "The change is the right run's figure divided by the left run's.",
            )),
        );
        let cells = figure_cells(comparison);
        let card = gtk::Box::new(gtk::Orientation::Vertical, 0);
        card.add_css_class("card");
        card.append(&cells_grid(&cells, &column_names(comparison)));
        figures.add(&card);
        self.append(&figures);
        imp.cells.replace(cells);
        imp.comparison.replace(Some(comparison.clone()));
        crate::a11y::tidy(self);
    }

    /// The figures' grid as shown, the header line first.
    pub fn shown_cells(&self) -> Vec<Vec<String>> {
        self.imp().cells.borrow().clone()
    }

    /// The comparison shown, if any.
    pub fn comparison(&self) -> Option<Comparison> {
        self.imp().comparison.borrow().clone()
    }
}

/// The group naming the two runs compared (drive, date, profile, link ceiling), with a
/// warning when they were measured differently.
fn sides_group(comparison: &Comparison) -> adw::PreferencesGroup {
    let sides = group(&gettext("Runs compared"), None);
    for (which, side) in [
        (gettext("Left"), &comparison.left),
        (gettext("Right"), &comparison.right),
    ] {
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        row.set_title(&fill(
            // Translators: one side of a comparison, e.g. "Left: Kitchen Pi card".
            &gettext("{side}: {drive}"),
            &[("side", &which), ("drive", &side.label)],
        ));
        let ceiling = match &side.link {
            Some(link) => fill(
                &gettext("connection at most {link}"),
                &[("link", &link.description)],
            ),
            None => gettext("connection speed not known"),
        };
        let date = side_date(comparison, side);
        row.set_subtitle(&format!(
            "{date} · {} · {ceiling}",
            profile_title(&side.profile)
        ));
        row.set_subtitle_lines(0);
        row.add_suffix(&Badge::new(side.verdict));
        sides.add(&row);
    }
    if comparison.different_measurement {
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        row.set_title(&gettext(
            "The two runs were measured differently (another test profile or engine): compare their figures with care.",
        ));
        row.set_title_lines(0);
        row.add_prefix(
            &gtk::Image::builder()
                .icon_name("agnostics-warning-symbolic")
                .accessible_role(gtk::AccessibleRole::Presentation)
                .build(),
        );
        sides.add(&row);
    }
    sides
}

/// The figures' grid as text: a header line (figure, left, right, change), then one line a
/// figure.
fn figure_cells(comparison: &Comparison) -> Vec<Vec<String>> {
    let head = vec![
        gettext("Figure"),
        gettext("Left"),
        gettext("Right"),
        gettext("Change"),
    ];
    let mut cells = vec![head];
    for f in &comparison.figures {
        cells.push(vec![
            agnostics_core::history::phase_label(&f.phase),
            figure_text(f.unit, f.left),
            figure_text(f.unit, f.right),
            ratio_text(f.ratio),
        ]);
    }
    cells
}

/// The date of `side` as the comparison shows it: to the minute, or to the second when the two
/// runs are of one minute (their seconds tell them apart).
fn side_date(comparison: &Comparison, side: &Side) -> String {
    if date_text(&comparison.left.started) == date_text(&comparison.right.started) {
        date_seconds_text(&side.started)
    } else {
        date_text(&side.started)
    }
}

/// What a screen reader calls each column of the figures' table: the figure, each run with its
/// date and verdict ("Left (2026-05-01 09:00, PASS)"), the change.
fn column_names(comparison: &Comparison) -> Vec<String> {
    let run = |which: String, side: &Side| {
        fill(
            // Translators: a column of the comparison's table as a screen reader names it:
            // the side, the run's date and its verdict, e.g. "Left (2026-05-01 09:00, PASS)".
            &gettext("{side} ({date}, {verdict})"),
            &[
                ("side", &which),
                ("date", &side_date(comparison, side)),
                ("verdict", &verdict_text(side.verdict)),
            ],
        )
    };
    vec![
        gettext("Figure"),
        run(gettext("Left"), &comparison.left),
        run(gettext("Right"), &comparison.right),
        gettext("Change"),
    ]
}

/// `cells` laid out as a table: the header line in bold (named by `columns`), the figure names
/// left (row headers), the numbers right. Each figure is named with its row
/// and column ("Sequential read, Left (2026-05-01 09:00, PASS): 40 MB/s"); no cell is
/// focusable (**Copy as Markdown** gives the text).
fn cells_grid(cells: &[Vec<String>], columns: &[String]) -> gtk::Grid {
    let grid = gtk::Grid::builder()
        .accessible_role(gtk::AccessibleRole::Table)
        .column_spacing(12)
        .row_spacing(8)
        .margin_top(12)
        .margin_bottom(12)
        .margin_start(12)
        .margin_end(12)
        .build();
    crate::a11y::set_label(&grid, &gettext("Figures"));
    for (y, line) in cells.iter().enumerate() {
        for (x, text) in line.iter().enumerate() {
            // GTK 4.8 gives a column header the AT-SPI role "filler", which screen readers
            // pass over: the header line's cells are table cells, named with their run.
            let role = match (y, x) {
                (y, 0) if y > 0 => gtk::AccessibleRole::RowHeader,
                _ => gtk::AccessibleRole::Cell,
            };
            let label = gtk::Label::builder()
                .label(text)
                .accessible_role(role)
                // Words wrap in a narrow window rather than widening it.
                .wrap(true)
                .build();
            label.set_justify(if x == 0 {
                gtk::Justification::Left
            } else {
                gtk::Justification::Right
            });
            label.set_xalign(if x == 0 { 0.0 } else { 1.0 });
            label.set_hexpand(x == 0);
            let name = match (y, x) {
                (0, _) => columns[x].clone(),
                (_, 0) => text.clone(),
                _ => fill(
                    // Translators: a figure of the comparison's table as a screen reader reads
                    // it: its row, its column, the figure, e.g. "Sequential read, Left
                    // (2026-05-01 09:00, PASS): 40.00 MB/s".
                    &gettext("{row}, {column}: {figure}"),
                    &[("row", &line[0]), ("column", &columns[x]), ("figure", text)],
                ),
            };
            crate::a11y::set_label(&label, &name);
            if y == 0 {
                label.add_css_class("heading");
            } else if x > 0 {
                label.add_css_class("numeric");
            }
            grid.attach(&label, x as i32, y as i32, 1, 1);
        }
    }
    grid
}
