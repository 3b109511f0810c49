//! The focus ring for keyboard users. GTK 4.8 draws it while keys come to the window and drops
//! it a few seconds after the last one; keys in a popover (a dropdown's list) or in another
//! window (the Keyboard Shortcuts window) never come to it, so after a choice there the ring
//! was gone. The window remembers whether a key or the pointer was used last ([`follow`]), and
//! [`restore`] draws the ring again after such a choice when it was a key.

use gtk::prelude::*;

/// The window's data key: `true` when a key was used last, `false` after a click.
const KEYBOARD_KEY: &str = "agnostics-keyboard-last";

/// Follows how `window` is used: every key pressed in it (before any control takes it) keeps
/// the ring drawn, a click marks the pointer as used last.
pub fn follow(window: &impl IsA<gtk::Window>) {
    let window: &gtk::Window = window.upcast_ref();
    let keys = gtk::EventControllerKey::new();
    keys.set_propagation_phase(gtk::PropagationPhase::Capture);
    keys.connect_key_pressed(glib_clone_window(window, |window| {
        set_keyboard(window, true);
        window.set_focus_visible(true);
    }));
    window.add_controller(keys);
    let clicks = gtk::GestureClick::new();
    clicks.set_propagation_phase(gtk::PropagationPhase::Capture);
    let weak = window.downgrade();
    clicks.connect_pressed(move |_, _, _, _| {
        if let Some(window) = weak.upgrade() {
            set_keyboard(&window, false);
        }
    });
    window.add_controller(clicks);
}

/// A key handler that calls `f` on `window` and lets the key go on to its control.
fn glib_clone_window(
    window: &gtk::Window,
    f: impl Fn(&gtk::Window) + 'static,
) -> impl Fn(
    &gtk::EventControllerKey,
    gtk::gdk::Key,
    u32,
    gtk::gdk::ModifierType,
) -> gtk::glib::Propagation {
    let weak = window.downgrade();
    move |_, _, _, _| {
        if let Some(window) = weak.upgrade() {
            f(&window);
        }
        gtk::glib::Propagation::Proceed
    }
}

/// Marks a key (`keyboard`) or the pointer as used last in `window`, as [`follow`] does.
pub fn set_keyboard(window: &gtk::Window, keyboard: bool) {
    // SAFETY: the key holds only bools.
    unsafe { window.set_data(KEYBOARD_KEY, keyboard) };
}

/// Whether a key was used last in `window` (false before any key or click).
pub fn keyboard_last(window: &impl IsA<gtk::Window>) -> bool {
    // SAFETY: the key holds only bools, set by `set_keyboard`.
    unsafe {
        window
            .upcast_ref::<gtk::Window>()
            .data::<bool>(KEYBOARD_KEY)
            .is_some_and(|b| *b.as_ptr())
    }
}

/// Draws the focus ring of `widget`'s window again when a key was used last there (after a
/// choice in a dropdown, after another window closed).
pub fn restore(widget: &impl IsA<gtk::Widget>) {
    if let Some(window) = widget.as_ref().root().and_downcast::<gtk::Window>() {
        if keyboard_last(&window) {
            window.set_focus_visible(true);
        }
    }
}
