//! The History pages' common layout: a clamped scrolled column, the page's box, headings and
//! the top bar with its back button.

use adw::prelude::*;
use gtk::glib;

pub(super) fn clear(list: &gtk::ListBox) {
    while let Some(child) = list.first_child() {
        list.remove(&child);
    }
}

pub(super) fn scrolled(child: &impl IsA<gtk::Widget>) -> gtk::ScrolledWindow {
    let clamp = adw::Clamp::builder()
        .maximum_size(720)
        .tightening_threshold(520)
        .child(child)
        .build();
    let scrolled = gtk::ScrolledWindow::builder()
        // A group (GTK 4.18 makes it generic, which cannot carry the pane's name).
        .accessible_role(gtk::AccessibleRole::Group)
        .hscrollbar_policy(gtk::PolicyType::Never)
        .vexpand(true)
        .child(&clamp)
        .build();
    // The Compare bar coming up below shrinks the page: the row focused with the keyboard
    // stays in view. A row ticked with the pointer stays where it is, under the pointer.
    scrolled
        .vadjustment()
        .connect_page_size_notify(glib::clone!(
            #[weak]
            scrolled,
            move |_| {
                glib::idle_add_local_once(glib::clone!(
                    #[weak]
                    scrolled,
                    move || keep_focus_in_view(&scrolled)
                ));
            }
        ));
    scrolled
}

/// Scrolls `scrolled` so that the focused widget inside it is wholly in view (nothing when
/// the focus is elsewhere, or when the pointer was used last).
fn keep_focus_in_view(scrolled: &gtk::ScrolledWindow) {
    let Some(viewport) = scrolled.child() else {
        return;
    };
    let keyboard = scrolled
        .root()
        .and_downcast::<gtk::Window>()
        .is_some_and(|w| crate::focus_ring::keyboard_last(&w));
    if !keyboard {
        return;
    }
    let Some(focus) = scrolled.root().and_then(|r| r.focus()) else {
        return;
    };
    if !focus.is_ancestor(&viewport) {
        return;
    }
    let Some(bounds) = focus.compute_bounds(&viewport) else {
        return;
    };
    let adjustment = scrolled.vadjustment();
    let (top, bottom) = (
        f64::from(bounds.y()),
        f64::from(bounds.y() + bounds.height()),
    );
    let page = adjustment.page_size();
    if bottom > page {
        adjustment.set_value(adjustment.value() + (bottom - page).min(top.max(0.0)));
    } else if top < 0.0 {
        adjustment.set_value(adjustment.value() + top);
    }
}

pub(super) fn page_box() -> gtk::Box {
    gtk::Box::builder()
        .orientation(gtk::Orientation::Vertical)
        .spacing(18)
        .margin_top(12)
        .margin_bottom(18)
        .margin_start(12)
        .margin_end(12)
        .build()
}

pub(super) fn heading(text: &str) -> gtk::Label {
    let label = gtk::Label::new(Some(text));
    label.set_xalign(0.0);
    label.set_wrap(true);
    label.add_css_class("heading");
    label
}

/// A page's top line: a back button, the title, and room for buttons at the end.
pub(super) fn top_bar(back_tooltip: &str) -> (gtk::Box, gtk::Button, gtk::Label) {
    let bar = gtk::Box::builder()
        .spacing(6)
        .margin_top(6)
        .margin_bottom(6)
        .margin_start(6)
        .margin_end(6)
        .build();
    let back = gtk::Button::from_icon_name("agnostics-back-symbolic");
    back.set_tooltip_text(Some(back_tooltip));
    crate::a11y::set_label(&back, back_tooltip);
    back.add_css_class("flat");
    let title = gtk::Label::new(None);
    title.set_hexpand(true);
    title.set_xalign(0.0);
    title.set_ellipsize(gtk::pango::EllipsizeMode::End);
    title.add_css_class("title-4");
    bar.append(&back);
    bar.append(&title);
    (bar, back, title)
}

/// A page's top line with buttons at its end: the back button and `title` (wrapped, never
/// cut), then `buttons`, which go to lines of their own when they do not fit beside the title
/// (a narrow window, a long translation). Returns the bar and its back button.
pub(super) fn wrapping_top_bar(
    back_tooltip: &str,
    title: &gtk::Label,
    buttons: &[&gtk::Button],
) -> (crate::widgets::WrapBox, gtk::Button) {
    let bar = crate::widgets::WrapBox::new();
    bar.set_margin_top(6);
    bar.set_margin_bottom(6);
    bar.set_margin_start(6);
    bar.set_margin_end(6);
    let (head, back, own_title) = top_bar(back_tooltip);
    head.remove(&own_title);
    head.set_margin_top(0);
    head.set_margin_bottom(0);
    head.set_margin_start(0);
    head.set_margin_end(0);
    head.set_hexpand(true);
    title.set_hexpand(true);
    title.set_xalign(0.0);
    title.set_wrap(true);
    title.set_wrap_mode(gtk::pango::WrapMode::WordChar);
    title.add_css_class("title-4");
    head.append(title);
    bar.append(&head);
    for button in buttons {
        bar.append(*button);
    }
    (bar, back)
}
