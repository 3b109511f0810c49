//! The capacity check's page ("Is my card genuine?"), on the SD Card view: while the check
//! runs, what it is doing in plain words, how many spots of the card are done, a progress
//! bar and **Cancel**; then the verdict in words with an icon and a style class (never colour
//! alone), what the card's registers say when they do not add up, and **Done**. The page
//! shows what the window gives it: sentences made from the check's report ([`verdict`]) and
//! its phase (`agnostics_core::capacity::text::phase_sentence`).

pub mod verdict;

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use gtk::glib;
use gtk::subclass::prelude::*;

use crate::widgets::tone::Tone;

/// A verdict as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// Icon and style.
    pub tone: Tone,
    /// One sentence: "This card is genuine: 29.7 GB verified of 32 GB claimed".
    pub title: String,
    /// What it means and what to do.
    pub body: String,
    /// What the card's registers claim that cannot be true, one line each.
    pub reasons: Vec<String>,
    /// A line in small print under the rest (how much was checked, when).
    pub note: Option<String>,
}

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/capacity_view.ui")]
    pub struct CapacityView {
        #[template_child]
        pub pane: TemplateChild<gtk::ScrolledWindow>,
        #[template_child]
        pub icon: TemplateChild<gtk::Image>,
        #[template_child]
        pub heading: TemplateChild<gtk::Label>,
        #[template_child]
        pub drive_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub running_box: TemplateChild<gtk::Box>,
        #[template_child]
        pub phase_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub progress_bar: TemplateChild<gtk::ProgressBar>,
        #[template_child]
        pub time_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub spots_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub body_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub reasons_heading: TemplateChild<gtk::Label>,
        #[template_child]
        pub reasons_list: TemplateChild<gtk::ListBox>,
        #[template_child]
        pub note_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub actions: TemplateChild<gtk::Box>,
        #[template_child]
        pub cancel_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub done_button: TemplateChild<gtk::Button>,
        /// Set by `set_cancelling` until the next `reset`: progress no longer replaces the
        /// "Stopping…" line.
        pub cancelling: std::cell::Cell<bool>,
        /// A stored check's verdict (the History view's): no **Cancel**, no **Done**.
        pub stored: std::cell::Cell<bool>,
        /// The style class the icon and heading have now.
        pub tone_class: std::cell::Cell<Option<&'static str>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for CapacityView {
        const NAME: &'static str = "AgnosticsCapacityView";
        type Type = super::CapacityView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            crate::resources::register();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for CapacityView {}
    impl WidgetImpl for CapacityView {}
    impl BoxImpl for CapacityView {}
}

glib::wrapper! {
    /// The capacity check's page.
    pub struct CapacityView(ObjectSubclass<imp::CapacityView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for CapacityView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl CapacityView {
    /// Clears the page for a new check of the drive named `drive`.
    pub fn reset(&self, drive: &str) {
        let imp = self.imp();
        self.set_tone(None);
        imp.icon.set_icon_name(Some("agnostics-card-symbolic"));
        let heading = gettext("Checking the drive’s capacity");
        imp.heading.set_label(&heading);
        // The pane is named after what it shows now, not what it showed when first mapped.
        crate::a11y::set_label(&*imp.pane, &heading);
        imp.drive_label.set_label(drive);
        imp.time_label.set_label("");
        imp.time_label.set_visible(false);
        imp.cancelling.set(false);
        self.set_phase(&gettext("Starting…"));
        imp.spots_label.set_label("");
        imp.spots_label.set_visible(false);
        imp.progress_bar.set_fraction(0.0);
        imp.running_box.set_visible(true);
        imp.body_label.set_visible(false);
        imp.note_label.set_visible(false);
        self.set_reasons(&[]);
        imp.cancel_button.set_visible(true);
        imp.done_button.set_visible(false);
    }

    /// Shows what the check is doing: `phase` in words, `done` of `total` spots, `fraction`
    /// of the whole check done (0.0 to 1.0).
    pub fn update(&self, phase: &str, done: u64, total: u64, fraction: f64) {
        let imp = self.imp();
        if !imp.cancelling.get() {
            self.set_phase(phase);
        }
        if total > 0 {
            imp.spots_label.set_label(&fill(
                // Translators: progress of the capacity check; a spot is one small block
                // written at one place on the card.
                &gettext("Spot {done} of {total}"),
                &[("done", &done.min(total)), ("total", &total)],
            ));
            imp.spots_label.set_visible(true);
        }
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        imp.progress_bar.set_fraction(fraction);
    }

    /// Shows how long the check has left ("About 2 minutes left"); empty hides it.
    pub fn set_time_left(&self, text: &str) {
        let label = &self.imp().time_label;
        if self.imp().cancelling.get() || text.is_empty() {
            label.set_visible(false);
            return;
        }
        if label.label() != text {
            label.set_label(text);
        }
        label.set_visible(true);
    }

    /// How long the check has left, as shown ("" when hidden).
    pub fn time_left_text(&self) -> String {
        let label = &self.imp().time_label;
        if label.is_visible() {
            label.label().to_string()
        } else {
            String::new()
        }
    }

    /// The scrolled pane (named for screen readers after what it shows).
    pub fn pane(&self) -> gtk::ScrolledWindow {
        self.imp().pane.get()
    }

    /// The drive line under the heading.
    pub fn drive_text(&self) -> String {
        self.imp().drive_label.label().to_string()
    }

    /// Says that the check is stopping (its file is being removed).
    pub fn set_cancelling(&self) {
        let imp = self.imp();
        self.set_phase(&gettext("Stopping… removing the check file"));
        imp.cancelling.set(true);
        imp.time_label.set_visible(false);
        imp.cancel_button.set_sensitive(false);
    }

    /// Shows the verdict `shown` in place of the progress, and **Done**.
    pub fn show_verdict(&self, shown: &Shown) {
        let imp = self.imp();
        imp.running_box.set_visible(false);
        imp.icon.set_icon_name(Some(shown.tone.icon_name()));
        self.set_tone(Some(shown.tone.css_class()));
        imp.heading.set_label(&shown.title);
        crate::a11y::set_label(&*imp.pane, &shown.title);
        imp.body_label.set_label(&shown.body);
        imp.body_label.set_visible(!shown.body.is_empty());
        self.set_reasons(&shown.reasons);
        let note = shown.note.as_deref().unwrap_or("");
        imp.note_label.set_label(note);
        imp.note_label.set_visible(!note.is_empty());
        imp.cancel_button.set_visible(false);
        imp.cancel_button.set_sensitive(true);
        imp.done_button.set_visible(true);
        crate::a11y::announce(&*imp.heading, &shown.title);
        crate::a11y::tidy(self);
    }

    /// Shows stored checks (`true`: no **Cancel** nor **Done**; the History view has its own
    /// way back).
    pub fn set_stored(&self, stored: bool) {
        self.imp().stored.set(stored);
        self.imp().actions.set_visible(!stored);
    }

    /// **Cancel**.
    pub fn cancel_button(&self) -> gtk::Button {
        self.imp().cancel_button.get()
    }

    /// **Done**, once the verdict is shown.
    pub fn done_button(&self) -> gtk::Button {
        self.imp().done_button.get()
    }

    /// The progress bar.
    pub fn progress_bar(&self) -> gtk::ProgressBar {
        self.imp().progress_bar.get()
    }

    /// The heading: "Checking…" while the check runs, then the verdict.
    pub fn heading_text(&self) -> String {
        self.imp().heading.label().to_string()
    }

    /// The phase line ("Writing …", "Stopping…").
    pub fn phase_text(&self) -> String {
        self.imp().phase_label.label().to_string()
    }

    /// "Spot 12 of 64" (empty before the first spot).
    pub fn spots_text(&self) -> String {
        self.imp().spots_label.label().to_string()
    }

    /// What the verdict means and what to do.
    pub fn body_text(&self) -> String {
        self.imp().body_label.label().to_string()
    }

    /// The register reasons shown, one line each.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut child = self.imp().reasons_list.first_child();
        while let Some(row) = child {
            if let Some(row) = row.downcast_ref::<adw::ActionRow>() {
                out.push(row.title().to_string());
            }
            child = row.next_sibling();
        }
        out
    }

    /// The style class the verdict has (`success`, `error`, `warning`), once shown.
    pub fn tone_class(&self) -> Option<&'static str> {
        self.imp().tone_class.get()
    }

    fn set_phase(&self, text: &str) {
        let imp = self.imp();
        if imp.phase_label.label() != text {
            imp.phase_label.set_label(text);
            crate::a11y::set_label(&*imp.phase_label, text);
        }
    }

    fn set_tone(&self, class: Option<&'static str>) {
        let imp = self.imp();
        if let Some(old) = imp.tone_class.replace(class) {
            imp.icon.remove_css_class(old);
            imp.heading.remove_css_class(old);
        }
        match class {
            Some(class) => {
                imp.icon.remove_css_class("dim-label");
                imp.icon.add_css_class(class);
                imp.heading.add_css_class(class);
            }
            None => imp.icon.add_css_class("dim-label"),
        }
    }

    fn set_reasons(&self, reasons: &[String]) {
        let list = &self.imp().reasons_list;
        while let Some(child) = list.first_child() {
            list.remove(&child);
        }
        for reason in reasons {
            let row = adw::ActionRow::new();
            row.set_use_markup(false);
            row.set_title(reason);
            row.set_title_lines(0);
            let icon = gtk::Image::builder()
                .icon_name("agnostics-warning-symbolic")
                .accessible_role(gtk::AccessibleRole::Presentation)
                .build();
            icon.add_css_class("warning");
            row.add_prefix(&icon);
            list.append(&row);
        }
        list.set_visible(!reasons.is_empty());
        self.imp().reasons_heading.set_visible(!reasons.is_empty());
    }
}
