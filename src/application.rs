//! The application: one instance per session (a second `agnostics` hands its command line to
//! the first), the command line (`--target DIR`, `--profile NAME|FILE`, `--dir DIR`…, `--run`,
//! `--version`, `--help`), the `app.quit` (Ctrl+Q) and `app.about` actions, the style
//! sheet, following Raspberry Pi OS's dark theme, and SIGINT, SIGTERM and SIGHUP (a closed
//! session or VNC login, `kill`): the running test stops, its file is removed, and the app
//! exits with status 128 + the signal.

use std::cell::Cell;
use std::path::PathBuf;
use std::time::Duration;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::profile::{Builtin, Profile};
use agnostics_core::signals::StopSignal;
use gtk::{gdk, gio, glib};

use crate::config::{APP_ID, VERSION};
use crate::theme;
use crate::window::{Action, Window};

/// The project's home page, shown in the About window.
const WEBSITE: &str = "https://github.com/agnostics-rs/agnostics";

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct Application {
        /// The first of SIGINT, SIGTERM or SIGHUP received.
        pub signal: Cell<Option<StopSignal>>,
        /// A watch that quits once nothing runs any more, after a signal.
        pub quitting: Cell<bool>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Application {
        const NAME: &'static str = "AgnosticsApplication";
        type Type = super::Application;
        type ParentType = adw::Application;
    }

    impl ObjectImpl for Application {
        fn constructed(&self) {
            self.parent_constructed();
            // The resources' path whatever the application ID: GtkApplication loads the
            // Keyboard Shortcuts window (win.show-help-overlay, Ctrl+?) from gtk/help-overlay.ui
            // under it.
            crate::resources::register();
            self.obj()
                .set_resource_base_path(Some(crate::resources::BASE));
            self.obj().add_options();
        }
    }

    impl ApplicationImpl for Application {
        fn startup(&self) {
            // The desktop's theme name, before libadwaita replaces it with its own.
            let theme_name = gtk::init()
                .ok()
                .and_then(|()| theme::theme_name_before_libadwaita());
            self.parent_startup();
            theme::follow_desktop_theme(theme_name);
            gtk::Window::set_default_icon_name(APP_ID);
            let obj = self.obj();
            obj.load_style();
            obj.setup_actions();
            obj.watch_signals();
            crate::bench_probe::install(obj.upcast_ref());
        }

        fn activate(&self) {
            self.parent_activate();
            self.obj().main_window().present();
        }

        fn handle_local_options(
            &self,
            options: &glib::VariantDict,
        ) -> std::ops::ControlFlow<glib::ExitCode> {
            if options.contains("version") {
                println!("agnostics {VERSION}");
                return std::ops::ControlFlow::Break(glib::ExitCode::SUCCESS);
            }
            // Checked here, in the process that was started, so that a bad job file is
            // reported on its terminal with exit status 2 (the first instance loads it again).
            if let Ok(Some(path)) = options.lookup::<PathBuf>("profile") {
                if let Err(e) = Profile::by_name_or_path(&path) {
                    eprintln!("agnostics: {}", invalid_profile(&e));
                    return std::ops::ControlFlow::Break(glib::ExitCode::from(2));
                }
            }
            self.parent_handle_local_options(options)
        }

        fn command_line(&self, command_line: &gio::ApplicationCommandLine) -> glib::ExitCode {
            self.obj().handle_command_line(command_line)
        }
    }

    impl GtkApplicationImpl for Application {}
    impl AdwApplicationImpl for Application {}
}

glib::wrapper! {
    /// The Agnostics application.
    pub struct Application(ObjectSubclass<imp::Application>)
        @extends adw::Application, gtk::Application, gio::Application,
        @implements gio::ActionGroup, gio::ActionMap;
}

impl Default for Application {
    fn default() -> Self {
        Application::new()
    }
}

/// "invalid profile: …" for people.
fn invalid_profile(error: &dyn std::fmt::Display) -> String {
    fill(&gettext("invalid profile: {error}"), &[("error", &error)])
}

impl Application {
    /// The application, with ID [`APP_ID`], handling its command line in the first instance.
    pub fn new() -> Application {
        glib::Object::builder()
            .property("application-id", APP_ID)
            .property("flags", gio::ApplicationFlags::HANDLES_COMMAND_LINE)
            .build()
    }

    fn add_options(&self) {
        self.set_option_context_summary(Some(&gettext(
            "Tests whether an SD card (or another drive) is fast enough for a Raspberry Pi, against the SD Association's A1 and A2 minimums.",
        )));
        self.add_main_option(
            "target",
            glib::Char::from(0),
            glib::OptionFlags::NONE,
            glib::OptionArg::Filename,
            &gettext("Folder to test in (default: /var/tmp, or the SD card)"),
            Some(&gettext("DIR")),
        );
        self.add_main_option(
            "profile",
            glib::Char::from(0),
            glib::OptionFlags::NONE,
            glib::OptionArg::Filename,
            &gettext(
                "A built-in profile (standard, quick, qd1, matrix, sustained) or a fio job file",
            ),
            Some(&gettext("NAME|FILE")),
        );
        self.add_main_option(
            "dir",
            glib::Char::from(0),
            glib::OptionFlags::NONE,
            glib::OptionArg::FilenameArray,
            &gettext("Also list the test scripts in this folder (may be repeated)"),
            Some(&gettext("DIR")),
        );
        self.add_main_option(
            "run",
            glib::Char::from(0),
            glib::OptionFlags::NONE,
            glib::OptionArg::None,
            &gettext("Start the test at once"),
            None,
        );
        self.add_main_option(
            "version",
            glib::Char::from(0),
            glib::OptionFlags::NONE,
            glib::OptionArg::None,
            &gettext("Print the version and exit"),
            None,
        );
    }

    fn handle_command_line(&self, command_line: &gio::ApplicationCommandLine) -> glib::ExitCode {
        let options = command_line.options_dict();
        let cwd = command_line.cwd().unwrap_or_else(|| PathBuf::from("/"));
        let path_option = |name: &str| {
            options.lookup::<PathBuf>(name).ok().flatten().map(|p| {
                if p.is_relative() {
                    cwd.join(p)
                } else {
                    p
                }
            })
        };
        let target = path_option("target");
        // A built-in name stays a name; a file is read relative to the launching folder.
        let profile_arg = options
            .lookup::<PathBuf>("profile")
            .ok()
            .flatten()
            .map(|p| {
                let is_name = p.to_str().is_some_and(|s| Builtin::find(s).is_some());
                if is_name || p.is_absolute() {
                    p
                } else {
                    cwd.join(p)
                }
            });
        let profile = match profile_arg {
            Some(path) => match Profile::by_name_or_path(&path) {
                Ok(profile) => Some(profile),
                Err(e) => {
                    // It was valid a moment ago in the launching process; say so in the window.
                    self.main_window().toast(&invalid_profile(&e));
                    return glib::ExitCode::from(2);
                }
            },
            None => None,
        };
        let dirs: Vec<PathBuf> = options
            .lookup::<Vec<PathBuf>>("dir")
            .ok()
            .flatten()
            .unwrap_or_default()
            .into_iter()
            .map(|p| if p.is_relative() { cwd.join(p) } else { p })
            .collect();
        let run = options.contains("run");
        let window = self.main_window();
        if !dirs.is_empty() {
            window.set_script_dirs(dirs);
        }
        window.set_launch(target, profile, run);
        window.present();
        glib::ExitCode::SUCCESS
    }

    /// The window, made on first use (one window: a second launch presents it).
    pub fn main_window(&self) -> Window {
        self.windows()
            .into_iter()
            .find_map(|w| w.downcast::<Window>().ok())
            .unwrap_or_else(|| Window::new(self))
    }

    fn load_style(&self) {
        let Some(display) = gdk::Display::default() else {
            return;
        };
        // The application icon from the resources, so that the About window and the window
        // list show it also when the program runs from the build tree.
        gtk::IconTheme::for_display(&display).add_resource_path(&crate::resources::icon_path());
        // style.css, and style-dark.css in the dark style, are libadwaita's to load: it finds
        // them under the resource base path and swaps them as the style changes.
    }

    fn setup_actions(&self) {
        let quit = gio::ActionEntry::builder("quit")
            .activate(|app: &Application, _, _| app.close_windows())
            .build();
        let about = gio::ActionEntry::builder("about")
            .activate(|app: &Application, _, _| app.show_about())
            .build();
        self.add_action_entries([quit, about]);
        self.set_accels_for_action("app.quit", &["<Primary>q"]);
        self.set_accels_for_action("window.close", &["<Primary>w"]);
        for action in Action::ALL.into_iter().filter(|a| !a.accels().is_empty()) {
            self.set_accels_for_action(action.name(), action.accels());
        }
    }

    /// Closes every window the way the close button does (a running test asks first); the
    /// application ends with its last window.
    pub fn close_windows(&self) {
        for window in self.windows() {
            window.close();
        }
    }

    /// The first of SIGINT, SIGTERM or SIGHUP this process received, if any: the exit
    /// status is then 128 + the signal (`agnostics_core::exit_code::ExitCode::Stopped`), as
    /// with `agnostics-cli`.
    pub fn stopped_by_signal(&self) -> Option<StopSignal> {
        self.imp().signal.get()
    }

    /// SIGINT, SIGTERM and SIGHUP become sources of the main loop (the handler itself only
    /// wakes the loop), so that the test is stopped from the main thread like **Stop and
    /// Close** does.
    fn watch_signals(&self) {
        for signal in StopSignal::ALL {
            let app = self.downgrade();
            glib_unix::unix_signal_add_local(signal.number(), move || {
                if let Some(app) = app.upgrade() {
                    app.stop_for_signal(signal);
                }
                glib::ControlFlow::Continue
            });
        }
    }

    /// What a signal does: when nothing runs, quit at once; otherwise every window stops its
    /// test (the engine waits for the requests already sent, then removes its file) and the
    /// app quits as soon as no window is busy any more. A second signal only repeats the
    /// message: an O_DIRECT write already sent cannot be abandoned.
    pub fn stop_for_signal(&self, signal: StopSignal) {
        let imp = self.imp();
        if imp.signal.get().is_none() {
            imp.signal.set(Some(signal));
        }
        let windows: Vec<Window> = self
            .windows()
            .into_iter()
            .filter_map(|w| w.downcast::<Window>().ok())
            .collect();
        if !windows.iter().any(Window::is_busy) {
            self.quit();
            return;
        }
        eprintln!(
            "agnostics: {}",
            gettext(
                "Stopping: waiting for the drive to finish the requests already sent to it \
                 (a slow card can take a minute), then removing the test file."
            )
        );
        for window in windows.iter().filter(|w| w.is_busy()) {
            window.stop_and_close();
        }
        if imp.quitting.replace(true) {
            return;
        }
        // The window closes itself once its test has ended; other windows (About, a file
        // chooser) must not keep the app alive, so quit as soon as nothing is busy.
        let app = self.downgrade();
        glib::timeout_add_local(Duration::from_millis(50), move || {
            let Some(app) = app.upgrade() else {
                return glib::ControlFlow::Break;
            };
            let busy = app
                .windows()
                .into_iter()
                .filter_map(|w| w.downcast::<Window>().ok())
                .any(|w| w.is_busy());
            if busy {
                glib::ControlFlow::Continue
            } else {
                app.quit();
                glib::ControlFlow::Break
            }
        });
    }

    fn show_about(&self) {
        // Before the About window joins the application and becomes its active window.
        let parent = self.active_window();
        let about = adw::AboutWindow::builder()
            .application_name(gettext("Raspberry Pi Diagnostics"))
            .application_icon(APP_ID)
            .version(VERSION)
            .developer_name(gettext("The Agnostics developers"))
            .comments(gettext(
                "Is your SD card fast enough? Measures the card or drive your Raspberry Pi runs from and grades it against the SD Association's Application Performance Class A1 and A2 minimums. Agnostics, a re-implementation of Raspberry Pi Diagnostics.",
            ))
            .website(WEBSITE)
            .issue_url(format!("{WEBSITE}/issues"))
            .license_type(gtk::License::Bsd3)
            .modal(true)
            .application(self)
            .build();
        // Translators: your names, one per line; shown in the About window.
        let credits = gettext("translator-credits");
        if credits != "translator-credits" {
            about.set_translator_credits(&credits);
        }
        if let Some(window) = parent {
            about.set_transient_for(Some(&window));
        }
        about.present();
    }
}
