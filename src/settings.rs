//! The app's settings (GSettings schema `io.github.agnostics_rs.Agnostics`, installed by
//! meson from `data/io.github.agnostics_rs.Agnostics.gschema.xml`): the last drive tested,
//! the built-in profile chosen and the window's size. A binary run from the build tree, where
//! the schema is not installed, remembers nothing rather than aborting (which
//! `gio::Settings::new` does for a missing schema).

use gtk::gio;

/// The schema's ID: the release application ID, shared by the development build.
pub const SCHEMA_ID: &str = "io.github.agnostics_rs.Agnostics";

/// The settings, or `None` when no installed (or `GSETTINGS_SCHEMA_DIR`) schema source has
/// [`SCHEMA_ID`].
pub fn settings() -> Option<gio::Settings> {
    let source = gio::SettingsSchemaSource::default()?;
    let schema = source.lookup(SCHEMA_ID, true)?;
    Some(gio::Settings::new_full(
        &schema,
        None::<&gio::SettingsBackend>,
        None,
    ))
}
