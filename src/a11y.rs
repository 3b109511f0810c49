//! Accessible labels and descriptions set at run time (the charts' descriptions, a badge's
//! "Result: PASS").
//!
//! GTK has had `gtk_accessible_update_property_value` since 4.0, but gtk4-rs only exposes the
//! GtkAccessible interface with its `v4_10` feature, and the app is built for GTK 4.8
//! (bookworm). This module binds that one C function; labels fixed at build time are set in
//! the `.ui` files instead.

use gtk::glib;
use gtk::glib::translate::ToGlibPtr;
use gtk::prelude::*;

extern "C" {
    // GTK 4.0+: void gtk_accessible_update_property_value (GtkAccessible *self,
    //   int n_properties, GtkAccessibleProperty properties[], const GValue values[]);
    fn gtk_accessible_update_property_value(
        accessible: *mut std::ffi::c_void,
        n_properties: std::ffi::c_int,
        properties: *mut gtk::ffi::GtkAccessibleProperty,
        values: *const glib::gobject_ffi::GValue,
    );
}

const LABEL_KEY: &str = "agnostics-accessible-label";

/// The accessible label last set on `widget` with [`set_label`] (GTK 4.8 has no getter).
pub fn label_of(widget: &impl IsA<gtk::Widget>) -> Option<String> {
    // SAFETY: the key holds only Strings (set by `set_label`).
    unsafe {
        widget
            .as_ref()
            .data::<String>(LABEL_KEY)
            .map(|p| p.as_ref().clone())
    }
}

/// Sets the accessible label of `widget` (what a screen reader says for it).
pub fn set_label(widget: &impl IsA<gtk::Widget>, text: &str) {
    // SAFETY: the key holds only Strings.
    unsafe { widget.as_ref().set_data(LABEL_KEY, text.to_owned()) };
    set_property(widget, gtk::ffi::GTK_ACCESSIBLE_PROPERTY_LABEL, text);
}

/// Sets the accessible description of `widget` (what a screen reader says after its label,
/// e.g. a chart's content in words).
pub fn set_description(widget: &impl IsA<gtk::Widget>, text: &str) {
    set_property(widget, gtk::ffi::GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text);
}

fn set_property(
    widget: &impl IsA<gtk::Widget>,
    property: gtk::ffi::GtkAccessibleProperty,
    text: &str,
) {
    let value = text.to_value();
    let mut properties = [property];
    let widget: &gtk::Widget = widget.upcast_ref();
    let pointer: *mut gtk::ffi::GtkWidget = widget.to_glib_none().0;
    // SAFETY: every GtkWidget implements GtkAccessible; one property, one initialised string
    // GValue, both alive for the call; GTK copies the value.
    unsafe {
        gtk_accessible_update_property_value(
            pointer.cast(),
            1,
            properties.as_mut_ptr(),
            ToGlibPtr::<*const glib::gobject_ffi::GValue>::to_glib_none(&value).0,
        );
    }
}
