//! The SD Card page's ready state as a view: the introduction (file size and space needed),
//! the drive chooser with **Choose another folder**, the profile row, the line naming the
//! folder the test file goes in, why the chosen drive would be refused (when it would), and
//! **Run SD Card Test**. The window fills it and reacts to its rows (see `window/ready.rs`);
//! the buttons use the window's `win.run` and `win.choose-folder` actions.

use adw::prelude::*;
use adw::subclass::prelude::*;
use gtk::glib;

use crate::widgets::DriveRow;

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/ready_view.ui")]
    pub struct ReadyView {
        #[template_child]
        pub intro_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub drive_row: TemplateChild<DriveRow>,
        #[template_child]
        pub profile_row: TemplateChild<adw::ComboRow>,
        #[template_child]
        pub folder_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub problem_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub run_button: TemplateChild<gtk::Button>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for ReadyView {
        const NAME: &'static str = "AgnosticsReadyView";
        type Type = super::ReadyView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            DriveRow::ensure_type();
            crate::resources::register();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for ReadyView {
        fn constructed(&self) {
            self.parent_constructed();
            // The profiles' popup entries named for screen readers, as the drives' are.
            use crate::widgets::drive_row::wrapping_factory;
            let row = &*self.profile_row;
            row.set_factory(Some(&wrapping_factory(None)));
            row.set_list_factory(Some(&wrapping_factory(Some(row))));
        }
    }
    impl WidgetImpl for ReadyView {}
    impl BoxImpl for ReadyView {}
}

glib::wrapper! {
    /// The SD Card page's ready state.
    pub struct ReadyView(ObjectSubclass<imp::ReadyView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for ReadyView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl ReadyView {
    /// The introduction: what the test writes and the space it needs.
    pub fn intro_label(&self) -> gtk::Label {
        self.imp().intro_label.get()
    }

    /// The drive chooser.
    pub fn drive_row(&self) -> DriveRow {
        self.imp().drive_row.get()
    }

    /// The profile row.
    pub fn profile_row(&self) -> adw::ComboRow {
        self.imp().profile_row.get()
    }

    /// "The test file goes in …".
    pub fn folder_label(&self) -> gtk::Label {
        self.imp().folder_label.get()
    }

    /// Why the chosen drive would be refused; hidden when it would not.
    pub fn problem_label(&self) -> gtk::Label {
        self.imp().problem_label.get()
    }

    /// **Run SD Card Test**.
    pub fn run_button(&self) -> gtk::Button {
        self.imp().run_button.get()
    }
}
