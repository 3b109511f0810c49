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

/// Hides from screen readers the buttons under `root` that are not on screen, now and as
/// they come and go: a message dialog keeps its responses twice (side by side, and stacked
/// for a narrow window) and shows one set, yet GTK 4.8 lists both.
pub fn hide_unshown_buttons(root: &impl IsA<gtk::Widget>) {
    let mut stack = vec![root.as_ref().clone()];
    while let Some(widget) = stack.pop() {
        if let Some(button) = widget.downcast_ref::<gtk::Button>() {
            set_hidden(button, !button.is_mapped());
            button.connect_map(|b| set_hidden(b, false));
            button.connect_unmap(|b| set_hidden(b, true));
        }
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
    }
}

/// Sets the accessible label of `widget` as its whole name: GTK 4.8 would otherwise join it
/// with the name of what labels it (a row's switch: "Run Slow? Slow").
pub fn set_whole_label(widget: &impl IsA<gtk::Widget>, text: &str) {
    set_label(widget, text);
    let widget: &gtk::Widget = widget.upcast_ref();
    let pointer: *mut gtk::ffi::GtkWidget = widget.to_glib_none().0;
    // SAFETY: a live widget; every GtkWidget implements GtkAccessible.
    unsafe {
        gtk_accessible_reset_relation(
            pointer.cast(),
            gtk::ffi::GTK_ACCESSIBLE_RELATION_LABELLED_BY,
        )
    };
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

extern "C" {
    // GTK 4.0+: void gtk_accessible_update_state_value (GtkAccessible *self, int n_states,
    //   GtkAccessibleState states[], const GValue values[]);
    fn gtk_accessible_update_state_value(
        accessible: *mut std::ffi::c_void,
        n_states: std::ffi::c_int,
        states: *mut gtk::ffi::GtkAccessibleState,
        values: *const glib::gobject_ffi::GValue,
    );
}

/// Marks `widget` hidden from screen readers (or not): GTK 4.8 leaves the pages of a stack
/// that are not shown in the accessibility tree as visible, Cancel of a page gone included.
pub fn set_hidden(widget: &impl IsA<gtk::Widget>, hidden: bool) {
    update_state(
        widget,
        gtk::ffi::GTK_ACCESSIBLE_STATE_HIDDEN,
        &hidden.to_value(),
    );
}

/// Tells screen readers whether `widget` (a row that stands for a check box) is ticked: the
/// state CHECKED, as a check box has it.
pub fn set_checked(widget: &impl IsA<gtk::Widget>, checked: bool) {
    // GtkAccessibleTristate: GTK_ACCESSIBLE_TRISTATE_FALSE 0, _TRUE 1.
    let value = i32::from(checked).to_value();
    update_state(widget, gtk::ffi::GTK_ACCESSIBLE_STATE_CHECKED, &value);
}

/// Sets one accessible state of `widget` to `value`, which must hold the type GTK documents
/// for that state (a boolean for HIDDEN, a GtkAccessibleTristate integer for CHECKED).
fn update_state(
    widget: &impl IsA<gtk::Widget>,
    state: gtk::ffi::GtkAccessibleState,
    value: &glib::Value,
) {
    let mut states = [state];
    let widget: &gtk::Widget = widget.upcast_ref();
    let pointer: *mut gtk::ffi::GtkWidget = widget.to_glib_none().0;
    // SAFETY: every GtkWidget implements GtkAccessible; one state and one initialised GValue
    // of the state's type, both alive for the call; GTK copies the value.
    unsafe {
        gtk_accessible_update_state_value(
            pointer.cast(),
            1,
            states.as_mut_ptr(),
            ToGlibPtr::<*const glib::gobject_ffi::GValue>::to_glib_none(value).0,
        );
    }
}

/// Whether `widget` switches between children of which one is shown (a stack, a view stack,
/// a squeezer, a leaflet) or shows its child only at times (a revealer).
fn shows_one_child(widget: &gtk::Widget) -> bool {
    widget.is::<gtk::Stack>()
        || widget.is::<gtk::Revealer>()
        || widget.is::<adw::ViewStack>()
        || widget.is::<adw::Squeezer>()
        || widget.is::<adw::Leaflet>()
}

/// Hides from screen readers every child of a stack (view stack, squeezer, leaflet) under
/// `root` while it is not on screen (unmapped), now and whenever it is mapped or unmapped, so
/// that what a screen reader lists is what the window shows.
pub fn hide_pages_not_shown(root: &impl IsA<gtk::Widget>) {
    let mut stack = vec![root.as_ref().clone()];
    while let Some(widget) = stack.pop() {
        let switching = shows_one_child(&widget);
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            if switching {
                set_hidden(&c, !c.is_mapped());
                c.connect_map(|w| {
                    set_hidden(w, false);
                    tidy(w);
                });
                c.connect_unmap(|w| set_hidden(w, true));
            }
            stack.push(c);
        }
    }
}

/// Makes what is under `root` read well by a screen reader, for the widgets that GTK 4.8
/// leaves unnamed: a list box does not take the focus itself (its rows do, and GTK would list
/// it as a focusable "GtkListBox"), nor a list view that cannot be focused (a combo row's
/// choice shown); an image without a name is hidden (its row or button
/// names it); a scrolled pane is named after its first heading (or first label) whenever it
/// is shown. Call it again when rows are added.
pub fn tidy(root: &impl IsA<gtk::Widget>) {
    let mut stack = vec![root.as_ref().clone()];
    while let Some(widget) = stack.pop() {
        if let Some(list) = widget.downcast_ref::<gtk::ListBox>() {
            list.set_focusable(false);
        } else if widget.is::<gtk::ListView>() && !widget.can_focus() {
            // A combo row's view of its choice: never focused, but listed as a "GtkListView".
            widget.set_focusable(false);
        } else if widget.is::<gtk::Image>() && label_of(&widget).is_none() {
            set_hidden(&widget, true);
        } else if let Some(pane) = widget.downcast_ref::<gtk::ScrolledWindow>() {
            // SAFETY: the key holds only bools.
            let named = unsafe { pane.data::<bool>(PANE_KEY).is_some() };
            if label_of(pane).is_none() && !named {
                // SAFETY: as above.
                unsafe { pane.set_data(PANE_KEY, true) };
                name_pane(pane);
                pane.connect_map(name_pane);
            }
        }
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
    }
}

const PANE_KEY: &str = "agnostics-named-pane";

/// Names `pane` after the first heading inside it (a label styled as a title or heading), or
/// its first label with text.
fn name_pane(pane: &gtk::ScrolledWindow) {
    let mut first = None;
    let mut stack: Vec<gtk::Widget> = pane.child().into_iter().collect();
    while let Some(widget) = stack.pop() {
        if let Some(label) = widget.downcast_ref::<gtk::Label>() {
            let text = without_mnemonic(&label.label());
            if !text.is_empty() && widget.is_visible() {
                let heading = ["title-1", "title-2", "title-3", "title-4", "heading"]
                    .iter()
                    .any(|c| widget.has_css_class(c));
                if heading {
                    set_label(pane, &text);
                    return;
                }
                first.get_or_insert(text);
            }
        }
        let mut children = Vec::new();
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            children.push(c);
        }
        stack.extend(children.into_iter().rev());
    }
    if let Some(text) = first {
        set_label(pane, &text);
    }
}

const ENTRY_KEY: &str = "agnostics-list-entry-name";

/// Names the entry `item` of a list (a combo row's popup) `text` for screen readers: GTK 4.8
/// leaves a list item's name empty.
///
/// GTK 4.12 and later have the list item's own `accessible-label`, which GTK gives the list's
/// item widget; it is used whenever the running GTK has it. On older GTK the item widget is
/// named itself, and only once it is in the list: a reference taken to a widget not yet
/// parented (still floating, as GTK 4.12 and later bind an entry before they insert it)
/// would sink it and free it when dropped, and GTK would then lay out a freed widget.
pub fn name_list_item(item: &gtk::ListItem, text: &str) {
    let Some(entry) = item.child() else { return };
    // SAFETY: the key holds only Strings (read by `list_entry_name`).
    unsafe { entry.set_data(ENTRY_KEY, text.to_owned()) };
    if item.find_property("accessible-label").is_some() {
        item.set_property("accessible-label", text);
        return;
    }
    let pointer: *mut gtk::ffi::GtkWidget = entry.to_glib_none().0;
    // SAFETY: a live widget; the parent is only looked at, no reference taken.
    let parent = unsafe { gtk::ffi::gtk_widget_get_parent(pointer) };
    // SAFETY: a non-null parent is a live GObject for the duration of this call.
    if parent.is_null() || unsafe { glib::gobject_ffi::g_object_is_floating(parent.cast()) } != 0 {
        return;
    }
    // SAFETY: a live, owned (not floating) widget: the reference taken here is given back.
    let widget: gtk::Widget = unsafe { glib::translate::from_glib_none(parent) };
    set_label(&widget, text);
}

/// The name given to the list entry held by `item_widget` (a list's item widget) with
/// [`name_list_item`]: its own accessible label where it was named itself, else the name its
/// list item carries for it.
pub fn list_entry_name(item_widget: &gtk::Widget) -> Option<String> {
    label_of(item_widget).or_else(|| {
        let entry = item_widget.first_child()?;
        // SAFETY: the key holds only Strings (set by `name_list_item`).
        unsafe { entry.data::<String>(ENTRY_KEY).map(|p| p.as_ref().clone()) }
    })
}

/// Names the drop-down `drop` `label` for screen readers where GTK 4.8 does not: on its
/// button, which takes the focus ("Test shown in the chart: Quick check", the choice shown
/// kept up to date), the choice inside the button hidden and never focused (the name says it).
pub fn name_drop_down(drop: &gtk::DropDown, label: &str) {
    set_label(drop, label);
    let sync = {
        let label = label.to_owned();
        move |drop: &gtk::DropDown| {
            let choice = drop
                .selected_item()
                .and_downcast::<gtk::StringObject>()
                .map(|s| s.string().to_string());
            let name = match &choice {
                Some(choice) => format!("{label}: {choice}"),
                None => label.clone(),
            };
            // GTK 4.14 and later name a drop-down's button after the drop-down itself, which
            // GTK labels with the choice shown (labelled-by): the drop-down gets the whole name.
            set_whole_label(drop, &name);
            let mut stack = vec![drop.clone().upcast::<gtk::Widget>()];
            while let Some(widget) = stack.pop() {
                if widget.is::<gtk::ToggleButton>() {
                    set_whole_label(&widget, &name);
                } else if widget.type_().name() == "GtkListItemWidget" {
                    // The choice shown in the button: GTK 4.12 and later make it a focusable
                    // item of its own, which a screen reader would list as a nameless panel.
                    set_hidden(&widget, true);
                    widget.set_focusable(false);
                } else if widget.is::<gtk::Popover>() {
                    // The popup's entries are the list's, named and focused as such.
                    continue;
                }
                let mut child = widget.first_child();
                while let Some(c) = child {
                    child = c.next_sibling();
                    stack.push(c);
                }
            }
        }
    };
    sync(drop);
    let sync = std::rc::Rc::new(sync);
    // GTK 4.12 and later fill the button when the drop-down is shown, and again after a
    // choice, and point the button's name at the choice shown (labelled-by): named at once
    // and again once GTK is done.
    let later = move |drop: &gtk::DropDown| {
        sync(drop);
        let drop = drop.downgrade();
        let sync = sync.clone();
        glib::idle_add_local_once(move || {
            if let Some(drop) = drop.upgrade() {
                sync(&drop);
            }
        });
    };
    drop.connect_map(later.clone());
    drop.connect_selected_notify(later);
}

/// Adds `toast` to `overlay` with its close button named for screen readers ("Close: Test
/// cancelled…"; libadwaita 1.2 leaves it "GtkImage") and its action button by its label
/// without the mnemonic ("Undo"), and those of the toasts shown after it.
pub fn add_toast(overlay: &adw::ToastOverlay, toast: adw::Toast) {
    let weak = overlay.downgrade();
    toast.connect_dismissed(move |_| {
        if let Some(overlay) = weak.upgrade() {
            // The next toast shows once this one has gone.
            glib::idle_add_local_once(move || name_toast_buttons(&overlay));
        }
    });
    overlay.add_toast(toast);
    name_toast_buttons(overlay);
}

fn name_toast_buttons(overlay: &adw::ToastOverlay) {
    let close = without_mnemonic(&agnostics_core::i18n::gettext("_Close"));
    let mut stack = vec![overlay.clone().upcast::<gtk::Widget>()];
    while let Some(widget) = stack.pop() {
        if widget.type_().name() == "AdwToastWidget" {
            let text = first_label_text(&widget).unwrap_or_default();
            let mut inner = vec![widget.clone()];
            while let Some(w) = inner.pop() {
                if let Some(button) = w.downcast_ref::<gtk::Button>() {
                    if button.label().is_none() {
                        set_whole_label(button, &format!("{close}: {text}"));
                    } else {
                        // Its action ("_Undo"): named without the mnemonic, and by its
                        // label only (GTK 4.8 said "_Undo Undo").
                        name_button(button);
                    }
                }
                let mut child = w.first_child();
                while let Some(c) = child {
                    child = c.next_sibling();
                    inner.push(c);
                }
            }
            continue;
        }
        let mut child = widget.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push(c);
        }
    }
}

/// The text of the first label with text under `root`, depth first.
fn first_label_text(root: &gtk::Widget) -> Option<String> {
    if let Some(label) = root.downcast_ref::<gtk::Label>() {
        let text = label.text().to_string();
        if !text.is_empty() {
            return Some(text);
        }
    }
    let mut child = root.first_child();
    while let Some(c) = child {
        if let Some(text) = first_label_text(&c) {
            return Some(text);
        }
        child = c.next_sibling();
    }
    None
}
