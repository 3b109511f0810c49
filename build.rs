//! Compiles the desktop app's resources (`data/resources.gresource.xml`: templates, style sheet,
//! icons) into `$OUT_DIR/agnostics.gresource` with `glib-compile-resources` (Debian package
//! libglib2.0-dev-bin), which `src/resources.rs` includes in the binary.

use std::path::PathBuf;
use std::process::Command;

const MANIFEST: &str = "data/resources.gresource.xml";

fn main() {
    let top = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let tool =
        std::env::var_os("GLIB_COMPILE_RESOURCES").unwrap_or("glib-compile-resources".into());
    println!("cargo:rerun-if-changed={MANIFEST}");
    println!("cargo:rerun-if-env-changed=GLIB_COMPILE_RESOURCES");

    // Rebuild when any file the manifest names changes.
    let deps = Command::new(&tool)
        .arg("--generate-dependencies")
        .arg("--sourcedir")
        .arg(&top)
        .arg(top.join(MANIFEST))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool:?} (install libglib2.0-dev-bin): {e}"));
    assert!(
        deps.status.success(),
        "{tool:?} --generate-dependencies {MANIFEST} failed: {}",
        String::from_utf8_lossy(&deps.stderr)
    );
    for file in String::from_utf8_lossy(&deps.stdout).lines() {
        println!("cargo:rerun-if-changed={file}");
    }

    let status = Command::new(&tool)
        .arg("--sourcedir")
        .arg(&top)
        .arg("--target")
        .arg(out.join("agnostics.gresource"))
        .arg(top.join(MANIFEST))
        .status()
        .unwrap_or_else(|e| panic!("cannot run {tool:?} (install libglib2.0-dev-bin): {e}"));
    assert!(status.success(), "{tool:?} {MANIFEST} failed ({status})");
}
