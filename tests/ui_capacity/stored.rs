//! A capacity check stored in the history, on its page: **Save Report…** writes it as JSON,
//! text or a picture, and **Forget Check** removes it from the history file (and the Found
//! fake mark it gave, which passes to a later check that found the drive fake too), with
//! **Undo** putting it back, as a stored run's own buttons do.

use std::path::Path;

use adw::prelude::*;
use agnostics::pages::HistoryPage;
use agnostics::testing::WindowProbe;
use agnostics::widgets::save_report::ReportFormat;
use agnostics::Application;
use agnostics_core::capacity::{text, CapacityReport};
use agnostics_core::history::History;

use super::fixture::*;
use super::support::history_fixture::*;
use super::support::*;

/// Finding: a stored capacity check could not be forgotten or saved. Its page has both.
pub fn a_stored_check_is_saved_and_forgotten_with_undo(app: &Application) {
    let f = fake_fixture();
    let window = history_window(app, &f.path);
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(&window);
    view.open_check(FAKE_CHECK_ID);
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Check);
    let shown: Vec<String> = descendants(view.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .filter(|b| b.is_mapped())
        .filter_map(|b| b.label().map(|l| l.to_string()))
        .collect();
    for label in ["Save _Report…", "_Forget Check"] {
        assert!(shown.iter().any(|l| l == label), "{label} in {shown:?}");
    }
    let stored = stored_check(&f.path).expect("the check is stored");
    // Save: the JSON is the stored check, the text the CLI's, the picture a PNG.
    let dir = scratch_dir();
    for format in ReportFormat::CHECK {
        let path = dir.path().join(format!("check.{}", format.extension()));
        view.save_shown_check(format, &path).expect("saved");
        match format {
            ReportFormat::Json => {
                let saved: CapacityReport =
                    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                assert_eq!(saved, stored);
            }
            ReportFormat::Text => {
                let saved = std::fs::read_to_string(&path).unwrap();
                assert_eq!(saved, text::to_text(&stored));
                assert!(saved.contains("8.6 GB"), "{saved}");
            }
            _ => assert_png(&path),
        }
    }
    // Forget: gone from the history file, with the Found fake mark it gave the card.
    view.forget_check(FAKE_CHECK_ID);
    settle(&window);
    assert_eq!(view.visible_page(), HistoryPage::Drive);
    let fake_row = |rows: Vec<(String, String)>| rows.iter().any(|r| r.1.starts_with("Fake:"));
    assert!(!fake_row(view.check_rows()), "{:?}", view.check_rows());
    assert!(!view.shows_found_fake());
    assert_eq!(stored_check(&f.path), None, "not in the history file");
    assert_eq!(fake_mark(&f.path), None);
    // Undo, on the toast: the same check back, and the mark.
    let undo = descendants(window.upcast_ref())
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Button>().ok())
        .find(|b| b.label().is_some_and(|l| l.replace('_', "") == "Undo"))
        .expect("the toast offers Undo");
    undo.emit_clicked();
    settle(&window);
    assert_eq!(stored_check(&f.path), Some(stored));
    assert_eq!(fake_mark(&f.path).as_deref(), Some(FAKE_CHECK_ID));
    assert!(fake_row(view.check_rows()), "{:?}", view.check_rows());
    assert!(view.shows_found_fake());
    // With a later check that found the card fake too, the mark passes to it.
    let mut later = fake_check("2026-08-02T10:00:00+00:00");
    later.check_id = format!("{:032x}", 0xfa4f);
    History::open(&f.path)
        .unwrap()
        .record_capacity(&later)
        .unwrap();
    view.forget_check(FAKE_CHECK_ID);
    settle(&window);
    assert_eq!(fake_mark(&f.path), Some(later.check_id));
    assert!(view.shows_found_fake(), "still found fake");
}

/// The fixture's fake check as the history file holds it, if it does.
fn stored_check(history: &Path) -> Option<CapacityReport> {
    let h = History::open_read_only(history).unwrap();
    h.capacity_report(FAKE_CHECK_ID).ok()
}

/// The check that marked the card found fake, as the history file holds it.
fn fake_mark(history: &Path) -> Option<String> {
    let h = History::open_read_only(history).unwrap();
    h.found_fake(&CARD.parse().unwrap()).unwrap()
}
