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
    // GTK 4.0+: void gtk_accessible_reset_relation (GtkAccessible *self,
    //   GtkAccessibleRelation relation);
    fn gtk_accessible_reset_relation(
        accessible: *mut std::ffi::c_void,
        relation: gtk::ffi::GtkAccessibleRelation,
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

const DESCRIPTION_KEY: &str = "agnostics-accessible-description";

/// The accessible description last set on `widget` with [`set_description`].
pub fn description_of(widget: &impl IsA<gtk::Widget>) -> Option<String> {
    // SAFETY: the key holds only Strings (set by `set_description`).
    unsafe {
        widget
            .as_ref()
            .data::<String>(DESCRIPTION_KEY)
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
    // SAFETY: the key holds only Strings.
    unsafe { widget.as_ref().set_data(DESCRIPTION_KEY, text.to_owned()) };
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

/// `label` as read aloud: the mnemonic underscores out ("_Run Again" → "Run Again"; a doubled
/// "__" is one literal underscore).
pub fn without_mnemonic(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            if chars.peek() == Some(&'_') {
                chars.next();
                out.push('_');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Gives every button under `root` whose label has a mnemonic its accessible name without the
/// underscore, once, now and whenever its label changes. GTK 4.8 otherwise joins the raw label
/// and the name of the label inside that it is "labelled by" ("_Run SD Card Test Run SD Card
/// Test"): the label is set without its underscore and the relation dropped.
pub fn name_mnemonic_buttons(root: &impl IsA<gtk::Widget>) {
    let mut stack = vec![root.as_ref().clone()];
    while let Some(widget) = stack.pop() {
        if let Some(button) = widget.downcast_ref::<gtk::Button>() {
            name_button(button);
            button.connect_label_notify(name_button);
            button.connect_use_underline_notify(name_button);
        }
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
    }
}

fn name_button(button: &gtk::Button) {
    let Some(label) = button.label() else { return };
    if button.uses_underline() && !label.is_empty() {
        let name = without_mnemonic(&label);
        set_label(button, &name);
        let widget: &gtk::Widget = button.upcast_ref();
        let pointer: *mut gtk::ffi::GtkWidget = widget.to_glib_none().0;
        // SAFETY: a live widget; every GtkWidget implements GtkAccessible.
        unsafe {
            gtk_accessible_reset_relation(
                pointer.cast(),
                gtk::ffi::GTK_ACCESSIBLE_RELATION_LABELLED_BY,
            )
        };
    }
}

type AnnounceFn = unsafe extern "C" fn(*mut std::ffi::c_void, *const std::ffi::c_char, i32);

/// `gtk_accessible_announce` when the GTK running the app has it (4.14 and later), looked up
/// at run time because the app is built for GTK 4.8.
fn announce_fn() -> Option<AnnounceFn> {
    static FN: std::sync::OnceLock<Option<AnnounceFn>> = std::sync::OnceLock::new();
    *FN.get_or_init(|| {
        // SAFETY: a NUL-terminated name; dlsym with RTLD_DEFAULT only looks the symbol up.
        let pointer =
            unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"gtk_accessible_announce".as_ptr()) };
        // SAFETY: when present, the symbol has this C signature (GtkAccessible *, const char *,
        // GtkAccessibleAnnouncementPriority).
        (!pointer.is_null())
            .then(|| unsafe { std::mem::transmute::<*mut libc::c_void, AnnounceFn>(pointer) })
    })
}

/// Tells screen readers `text` (a new phase, the verdict) from `widget`. With GTK 4.14 or later
/// it is an announcement (medium priority); on older GTK the caller's status label (role
/// `status`, whose text changes to `text`) is what they read. Returns true when announced.
pub fn announce(widget: &impl IsA<gtk::Widget>, text: &str) -> bool {
    let Some(announce) = announce_fn() else {
        return false;
    };
    let Ok(text) = std::ffi::CString::new(text) else {
        return false;
    };
    let widget: &gtk::Widget = widget.upcast_ref();
    let pointer: *mut gtk::ffi::GtkWidget = widget.to_glib_none().0;
    // SAFETY: a live widget (every GtkWidget is a GtkAccessible), a NUL-terminated string that
    // GTK copies, priority 1 (GTK_ACCESSIBLE_ANNOUNCEMENT_PRIORITY_MEDIUM).
    unsafe { announce(pointer.cast(), text.as_ptr(), 1) };
    true
}
