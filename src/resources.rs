//! The app's resources (templates, style sheet, icons), compiled into the binary by build.rs
//! from `data/resources.gresource.xml`, under [`BASE`].

use std::sync::Once;

use gtk::gio;

/// Where the resources are: `BASE/ui/*.ui`, `BASE/style.css`, `BASE/icons/…`.
pub const BASE: &str = "/io/github/agnostics_rs/Agnostics";

/// Registers the resources with GIO, once per process (later calls do nothing). Called before
/// a template is bound and when the application starts.
///
/// # Panics
/// When the compiled bundle is malformed, which build.rs rules out.
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        gio::resources_register_include!("agnostics.gresource")
            .expect("the compiled resources are valid");
    });
}

/// The icon folder of the resources, for the display's icon theme: GTK finds the application
/// icon there whether or not it is installed.
pub fn icon_path() -> String {
    format!("{BASE}/icons")
}
