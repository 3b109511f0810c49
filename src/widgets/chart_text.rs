//! The charts' text laid out with Pango, like the rest of the window's text: the widget's own
//! font and language, with fontconfig falling back character by character. Cairo's plain text
//! API (what plotters' cairo backend uses) picks one font for a whole string and draws a box
//! for every character that font lacks, e.g. the digits and units of a chart in a language
//! whose only installed font is a CJK one without Latin letters.
//!
//! [`PangoBackend`] is plotters' cairo backend with its text (tick labels, axis names) drawn by
//! [`ChartText`]; the charts draw their own legends and captions with [`ChartText`] too. Every
//! string drawn is logged with the number of characters Pango found no font for, so tests
//! can check what a chart really drew.

use std::cell::RefCell;

use gtk::prelude::*;
use gtk::{cairo, pango};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use plotters_cairo::CairoBackend;

/// One string a chart drew.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnText {
    /// The text as drawn.
    pub text: String,
    /// Characters drawn as a missing-glyph box: no installed font has them
    /// (`pango_layout_get_unknown_glyphs_count`).
    pub unknown_glyphs: i32,
}

/// Lays out and draws chart text in a widget's font (its Pango context: family, language,
/// font options) at a size in pixels.
#[derive(Debug)]
pub struct ChartText {
    context: pango::Context,
    font: pango::FontDescription,
    drawn: RefCell<Vec<DrawnText>>,
}

impl ChartText {
    /// Text in `widget`'s font.
    pub fn new(widget: &impl IsA<gtk::Widget>) -> ChartText {
        let context = widget.pango_context();
        let font = context.font_description().unwrap_or_default();
        ChartText {
            context,
            font,
            drawn: RefCell::new(Vec::new()),
        }
    }

    /// `text` laid out at `px` pixels (the font's absolute size).
    pub fn layout(&self, text: &str, px: f64) -> pango::Layout {
        let layout = pango::Layout::new(&self.context);
        let mut font = self.font.clone();
        font.set_absolute_size(px * f64::from(pango::SCALE));
        layout.set_font_description(Some(&font));
        layout.set_text(text);
        layout
    }

    /// The logical size of `text` at `px` pixels: (width, height) in pixels.
    pub fn size(&self, text: &str, px: f64) -> (f64, f64) {
        let (w, h) = self.layout(text, px).pixel_size();
        (f64::from(w), f64::from(h))
    }

    /// The ink box of `text` at `px` pixels, from the layout's top left corner: (x, y, width,
    /// height) in pixels.
    pub fn ink(&self, text: &str, px: f64) -> (f64, f64, f64, f64) {
        let (ink, _) = self.layout(text, px).pixel_extents();
        let f = f64::from;
        (f(ink.x()), f(ink.y()), f(ink.width()), f(ink.height()))
    }

    /// Draws `text` at `px` pixels in `cr`'s current source, its logical box's top left corner
    /// at `(x, y)` in `cr`'s user space, and logs it.
    pub fn show(&self, cr: &cairo::Context, text: &str, px: f64, (x, y): (f64, f64)) {
        let layout = self.layout(text, px);
        cr.move_to(x, y);
        pangocairo::functions::show_layout(cr, &layout);
        self.drawn.borrow_mut().push(DrawnText {
            text: text.to_owned(),
            unknown_glyphs: layout.unknown_glyphs_count(),
        });
    }

    /// Draws `text` centred on `x`, its top at `y`.
    pub fn show_centred(&self, cr: &cairo::Context, text: &str, px: f64, (x, y): (f64, f64)) {
        let (w, _) = self.size(text, px);
        self.show(cr, text, px, (x - w / 2.0, y));
    }

    /// Every string drawn so far, in order.
    pub fn drawn(&self) -> Vec<DrawnText> {
        self.drawn.borrow().clone()
    }
}

/// Sets `cr`'s source to a plotters colour.
pub fn set_source(cr: &cairo::Context, color: BackendColor) {
    let c = |v: u8| f64::from(v) / 255.0;
    cr.set_source_rgba(c(color.rgb.0), c(color.rgb.1), c(color.rgb.2), color.alpha);
}

/// Plotters' cairo backend with its text drawn by a [`ChartText`].
pub struct PangoBackend<'a> {
    cairo: CairoBackend<'a>,
    cr: &'a cairo::Context,
    text: &'a ChartText,
}

impl std::fmt::Debug for PangoBackend<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PangoBackend")
            .field("size", &self.cairo.get_size())
            .finish()
    }
}

impl<'a> PangoBackend<'a> {
    /// A backend drawing on `cr` over `size` (width, height) pixels.
    ///
    /// # Errors
    /// When cairo cannot tell the context's clip (plotters' own backend refuses it then).
    pub fn new(
        cr: &'a cairo::Context,
        size: (u32, u32),
        text: &'a ChartText,
    ) -> Result<PangoBackend<'a>, String> {
        let cairo = CairoBackend::new(cr, size).map_err(|e| format!("{e:?}"))?;
        Ok(PangoBackend { cairo, cr, text })
    }
}

type Drawn = Result<(), DrawingErrorKind<cairo::Error>>;

impl DrawingBackend for PangoBackend<'_> {
    type ErrorType = cairo::Error;

    fn get_size(&self) -> (u32, u32) {
        self.cairo.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn {
        self.cairo.ensure_prepared()
    }

    fn present(&mut self) -> Drawn {
        self.cairo.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        self.cairo.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Drawn {
        self.cairo.draw_line(from, to, s)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.cairo.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        self.cairo.draw_path(path, style)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn {
        self.cairo.fill_polygon(vert, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        self.cairo.draw_circle(center, radius, style, fill)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<cairo::Error>> {
        let (w, h) = self.text.size(text, style.size());
        Ok((w.ceil() as u32, h.ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn {
        let angle: f64 = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        // Anchored by the ink, as plotters' own cairo backend does: a label "at the top"
        // has its glyphs' tops there, whatever the font's line spacing.
        let (ix, iy, w, h) = self.text.ink(text, style.size());
        let dx = -ix
            - match style.anchor().h_pos {
                HPos::Left => 0.0,
                HPos::Center => w / 2.0,
                HPos::Right => w,
            };
        let dy = -iy
            - match style.anchor().v_pos {
                VPos::Top => 0.0,
                VPos::Center => h / 2.0,
                VPos::Bottom => h,
            };
        let cr = self.cr;
        cr.save().map_err(DrawingErrorKind::DrawingError)?;
        cr.translate(f64::from(pos.0), f64::from(pos.1));
        cr.rotate(angle.to_radians());
        set_source(cr, style.color());
        self.text.show(cr, text, style.size(), (dx, dy));
        cr.restore().map_err(DrawingErrorKind::DrawingError)
    }
}
