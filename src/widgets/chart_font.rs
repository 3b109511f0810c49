//! The font family the charts draw their text in. Plotters' cairo backend (and the charts'
//! own cairo text) use cairo's plain text API, which picks one font for a whole string and
//! never falls back per character: with the default sans-serif, Japanese, Korean or Chinese
//! labels come out as boxes. Pango knows which installed font carries the UI language's
//! characters, so the family is taken from it.

use gtk::pango;
use gtk::prelude::*;

/// The family of the font Pango uses, with `widget`'s font and the default language, for the
/// first non-ASCII character of `texts` (the translated labels the chart will draw); the
/// widget's own family when every character is ASCII; `sans-serif` when Pango cannot say.
pub fn family_for(widget: &impl IsA<gtk::Widget>, texts: &[&str]) -> String {
    let context = widget.pango_context();
    let desc = context.font_description().unwrap_or_default();
    let fallback = desc
        .family()
        .map(|f| f.to_string())
        .unwrap_or_else(|| "sans-serif".to_owned());
    let Some(fontset) = context.load_fontset(&desc, &pango::Language::default()) else {
        return fallback;
    };
    texts
        .iter()
        .flat_map(|t| t.chars())
        .find(|c| !c.is_ascii() && c.is_alphabetic())
        .and_then(|c| fontset.font(u32::from(c)).describe().family())
        .map(|f| f.to_string())
        .unwrap_or(fallback)
}
