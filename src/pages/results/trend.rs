//! The results page's trend: how this run compares with the drive's earlier runs of the same
//! profile (from the history), a line per figure with its change's icon, under the verdict's
//! rows so that these stay on the first screen.

use adw::prelude::*;
use agnostics_core::history::trend::{self, Change, Trend};
use agnostics_core::i18n::gettext;
use gtk::subclass::prelude::*;

use super::ResultsView;
use crate::widgets::results_rows::{advice_row, group, marked_row};

impl ResultsView {
    /// Shows how this run compares with the drive's earlier runs of the same profile, under
    /// the verdict's rows and advice (nothing when `trend` is `None`), and the advice for a
    /// marked decline.
    pub fn show_trend(&self, trend: Option<&Trend>) {
        let (lines, advice) = match trend {
            Some(t) => (
                t.figures
                    .iter()
                    .map(|f| (trend::describe(f), f.change))
                    .collect::<Vec<_>>(),
                trend::decline_advice(t),
            ),
            None => (Vec::new(), Vec::new()),
        };
        self.show_trend_lines(&lines, &advice);
    }

    /// The trend under the verdict's rows and advice: one line per figure (`lines`, e.g.
    /// "Sequential write 6.3 MB/s — down 50 % from 12.6 MB/s on 2026-06-01 (3 earlier runs)",
    /// with its change), and when a figure declined markedly, the `advice` under them.
    /// Replaces a trend shown before; nothing when `lines` is empty.
    fn show_trend_lines(&self, lines: &[(String, Change)], advice: &[String]) {
        let imp = self.imp();
        if let Some((old, _)) = imp.trend.take() {
            imp.groups.remove(&old);
        }
        if lines.is_empty() {
            return;
        }
        let trend = group(
            &gettext("Compared with earlier runs"),
            Some(&gettext(
                "This drive's earlier runs of the same test, from the history.",
            )),
        );
        for (line, change) in lines {
            let (icon, class) = change_icon(*change);
            trend.add(&marked_row(line, icon, class));
        }
        for text in advice {
            trend.add(&advice_row(text, "agnostics-warning-symbolic"));
        }
        let after = imp.trend_after.borrow().clone();
        match after.filter(|w| w.parent().as_ref() == Some(imp.groups.upcast_ref())) {
            Some(after) => imp.groups.insert_child_after(&trend, Some(&after)),
            None => imp.groups.prepend(&trend),
        }
        let texts = lines.iter().map(|(l, _)| l.clone()).collect();
        imp.trend.replace(Some((trend, texts)));
    }

    /// The trend lines shown (empty when there is no trend).
    pub fn shown_trend(&self) -> Vec<String> {
        self.imp()
            .trend
            .borrow()
            .as_ref()
            .map(|(_, lines)| lines.clone())
            .unwrap_or_default()
    }
}

/// A trend line's icon and style class: down has its own (a warning), up its own, and about
/// the same the history's clock.
fn change_icon(change: Change) -> (&'static str, Option<&'static str>) {
    match change {
        Change::Down => ("agnostics-down-symbolic", Some("warning")),
        Change::Up => ("agnostics-up-symbolic", Some("success")),
        Change::Same => ("agnostics-history-symbolic", None),
    }
}
