//! What every chart's drawing area shares: assistive technologies see one image (its words
//! are the chart's accessible label), it is framed as a card as wide as its row, and its draw
//! function hands the chart its size in pixels.

use gtk::prelude::*;
use gtk::subclass::prelude::*;
use gtk::{cairo, glib};

/// Sets a chart class's CSS node name (`css_name`, the selector `style.css` uses) and its
/// accessible role, an image.
pub fn class_init<C>(klass: &mut C, css_name: &str)
where
    C: WidgetClassExt,
    <C as glib::subclass::types::ClassStruct>::Type: WidgetImpl,
{
    klass.set_css_name(css_name);
    klass.set_accessible_role(gtk::AccessibleRole::Img);
}

/// Sets up a newly constructed chart `area`: at least `height` pixels tall, as wide as its
/// row, framed as a card, and drawn by `draw` with the cairo context and the width and height
/// in pixels.
pub fn set_up<W>(area: &W, height: i32, draw: fn(&W, &cairo::Context, i32, i32))
where
    W: IsA<gtk::DrawingArea> + IsA<gtk::Widget>,
{
    area.set_content_height(height);
    area.set_hexpand(true);
    area.add_css_class("card");
    area.set_draw_func(move |area, cr, width, height| {
        if let Some(chart) = area.downcast_ref::<W>() {
            draw(chart, cr, width, height);
        }
    });
}
