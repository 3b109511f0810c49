//! Helpers for the UI tests: the shared application and its tests for the testkit harness on
//! GTK's main thread, waiting on the main
//! loop, small profiles, a tmpfs folder, testkit's throttled disk with this process in it (as root), and
//! PNG snapshots of the window. The real-system fixtures underneath (scratch folders on disk,
//! loop devices, mounts, blkio throttles, card sysfs trees) are `agnostics-testkit`'s,
//! re-exported here for the tests' `use support::*`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::Window;
use agnostics_core::profile::Profile;
// Not both test binaries that include this module use each of them.
#[allow(unused_imports)]
pub use agnostics_testkit::{card_sysfs, is_root, scratch_dir, test_files};
use agnostics_testkit::{run, Throttle, Tmpfs};
use gtk::{gdk, glib, graphene};

pub mod history_fixture;

/// The longest any wait may take before the test fails. Generous on purpose: this is an upper
/// bound for a stuck test, not a timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(600);

thread_local! {
    /// The application every UI test of this process shares, made on first use by [`app`] on
    /// GTK's main thread (the thread the harness runs the tests on).
    static APP: std::cell::OnceCell<agnostics::Application> = const { std::cell::OnceCell::new() };
}

/// The shared application: GTK started and the application registered on the first call.
///
/// # Panics
/// When GTK cannot start (no display: run the UI tests under `xvfb-run -a`) or the
/// application cannot register.
pub fn app() -> agnostics::Application {
    APP.with(|cell| {
        cell.get_or_init(|| {
            // The drives' locks of this process's tests only: the window asks before it tests
            // a drive another program is testing, and tests of other programs on this disk
            // must not make it ask.
            if std::env::var_os(agnostics_core::drive_lock::DIR_VARIABLE).is_none() {
                std::env::set_var(
                    agnostics_core::drive_lock::DIR_VARIABLE,
                    agnostics_testkit::private_lock_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))),
                );
            }
            if let Err(e) = gtk::init() {
                panic!("the UI tests need a display (run them under xvfb-run -a): {e}");
            }
            let app = agnostics::Application::new();
            // No D-Bus name is needed (or may be available) for tests.
            app.set_flags(app.flags() | gtk::gio::ApplicationFlags::NON_UNIQUE);
            app.register(None::<&gtk::gio::Cancellable>)
                .expect("the application registers");
            app
        })
        .clone()
    })
}

/// A harness test named `name` running `test` with the shared [`app`]; every window it leaves
/// (also when it fails) is closed afterwards.
pub fn ui_test<O: agnostics_testkit::harness::Outcome + 'static>(
    name: &str,
    test: fn(&agnostics::Application) -> O,
) -> agnostics_testkit::harness::Test {
    agnostics_testkit::harness::Test::new(name, move || {
        let app = app();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&app)));
        close_all_windows(&app);
        outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `ui_tests![a, b]`: the UI test functions (each `fn(&Application)` returning `()` or
/// `agnostics_testkit::Ran`) as harness tests, for `agnostics_testkit::harness::run_on_this_thread`.
#[macro_export]
macro_rules! ui_tests {
    ($($test:ident),+ $(,)?) => {
        vec![$($crate::support::ui_test(stringify!($test), $test)),+]
    };
}

/// Destroys every window left by a test (a failed one may leave a test running: cancel it and
/// wait for its file to go first).
fn close_all_windows(app: &agnostics::Application) {
    for window in app.windows() {
        if let Ok(win) = window.clone().downcast::<Window>() {
            let run = win.test_run();
            run.cancel();
            let _ = try_wait_until(PATIENCE, || !run.is_busy());
        }
        window.destroy();
    }
    iterate_briefly();
}

/// Stops the window's test when dropped (cancel, then wait until its file is gone). Declared
/// after the folder or disk a test uses, it lets go of it first, even when the test fails.
#[derive(Debug)]
pub struct StopOnDrop(pub Window);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        let run = self.0.test_run();
        run.cancel();
        let _ = try_wait_until(PATIENCE, || !run.is_busy());
    }
}

/// Iterates the main loop until `done()` or `limit`; false on timeout.
pub fn try_wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let context = glib::MainContext::default();
    // A tick so that a blocking iteration always wakes up to look at `done` again.
    let tick = glib::timeout_add_local(Duration::from_millis(20), || glib::ControlFlow::Continue);
    let start = Instant::now();
    let mut ok = true;
    while !done() {
        if start.elapsed() > limit {
            ok = false;
            break;
        }
        context.iteration(true);
    }
    tick.remove();
    ok
}

/// Iterates the main loop until `done()`, failing the test with `what` after [`PATIENCE`].
pub fn wait_until(what: &str, done: impl FnMut() -> bool) {
    assert!(try_wait_until(PATIENCE, done), "gave up waiting for {what}");
}

/// Lets pending events, layout and drawing happen.
pub fn iterate_briefly() {
    let until = Instant::now() + Duration::from_millis(200);
    let _ = try_wait_until(Duration::from_secs(5), || Instant::now() >= until);
}

/// A window of `app` whose content (header bar and page) is 800×480, a Raspberry Pi
/// touchscreen, its drives listed.
pub fn new_window(app: &agnostics::Application) -> Window {
    let window = Window::new(app);
    window.set_default_size(800, 480);
    window.present();
    wait_until("the list of drives", || window.drives_loaded());
    iterate_briefly();
    // The window's frame (resize borders without a window manager) takes some of its size.
    let content = window.content().expect("the window has content");
    let (extra_w, extra_h) = (800 - content.width(), 480 - content.height());
    if (extra_w, extra_h) != (0, 0) {
        window.set_default_size(800 + extra_w, 480 + extra_h);
        wait_until("an 800×480 window", || {
            content.width() == 800 && content.height() == 480
        });
    }
    window
}

/// Points `window` at `dir` (and `profile`), and waits for the drives to be listed again.
pub fn aim(window: &Window, dir: &Path, profile: Option<Profile>) {
    window.set_launch(Some(dir.to_path_buf()), profile, false);
    wait_until("the list of drives", || window.drives_loaded());
    assert_eq!(
        window.drive_row().selected_choice().map(|c| c.dir),
        Some(dir.to_path_buf()),
        "the folder given is the one selected"
    );
}

/// Writes `text` as a job file in `dir` and loads it the way `--profile FILE` does.
pub fn profile_file(dir: &Path, name: &str, text: &str) -> Profile {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writing the job file");
    Profile::load(&path).unwrap_or_else(|e| panic!("bad test profile: {e}"))
}

/// The standard test's five phases, small: an 8 MiB file, 1 MiB sequential blocks, 4 KiB random
/// blocks for at most a second.
pub const SMALL_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=8
size=8m
end_fsync=1

[prepare-file]
rw=write
bs=1m
stonewall

[seq-write]
rw=write
bs=1m
stonewall

[seq-read]
rw=read
bs=1m
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=1
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=1
stonewall
";

/// One long phase (random 4 KiB writes, one at a time, for up to 20 s over 1 GiB), so that a
/// test can cancel it in the middle whatever the disk.
pub const LONG_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=1
size=1g

[rand-4k-write]
rw=randwrite
bs=4k
runtime=20
";

fn fs_type_of(path: &Path) -> String {
    run(Command::new("stat").args(["-f", "-c", "%T"]).arg(path))
}

/// A folder on tmpfs: one under /dev/shm when that is tmpfs, else (as root) a 64 MiB tmpfs
/// mounted for the test and unmounted on drop. `None` when neither is possible.
#[derive(Debug)]
pub enum TmpfsDir {
    /// A folder under /dev/shm, removed on drop.
    Shm(tempfile::TempDir),
    /// A tmpfs mounted for the test.
    Mounted(Tmpfs),
}

impl TmpfsDir {
    /// A fresh folder on tmpfs.
    pub fn new() -> Option<TmpfsDir> {
        if Path::new("/dev/shm").is_dir() && fs_type_of(Path::new("/dev/shm")) == "tmpfs" {
            let dir = tempfile::Builder::new()
                .prefix("agnostics-ui-test.")
                .tempdir_in("/dev/shm")
                .ok()?;
            return Some(TmpfsDir::Shm(dir));
        }
        if !is_root() {
            return None;
        }
        Some(TmpfsDir::Mounted(Tmpfs::new(64)))
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        match self {
            TmpfsDir::Shm(dir) => dir.path(),
            TmpfsDir::Mounted(tmpfs) => &tmpfs.mount,
        }
    }
}

/// The testkit's throttled disk with this process in its group: the app measures in-process,
/// like a slow SD card whose speed is known by construction. Needs root and a cgroup
/// throttle; torn down on drop (this process back to the root group first).
#[derive(Debug)]
pub struct ThrottledDisk(agnostics_testkit::ThrottledDisk);

impl ThrottledDisk {
    /// A `size_mib` MiB filesystem limited to `write_bps`/`read_bps` bytes and
    /// `write_iops`/`read_iops` operations per second. `Err` (with the reason) when this
    /// machine cannot make one.
    pub fn new(
        size_mib: u64,
        write_bps: u64,
        read_bps: u64,
        write_iops: u64,
        read_iops: u64,
    ) -> Result<ThrottledDisk, String> {
        agnostics_testkit::ThrottledDisk::require().map_err(|skip| skip.0)?;
        let disk = agnostics_testkit::ThrottledDisk::new(
            size_mib,
            Throttle {
                write_bps,
                read_bps,
                write_iops,
                read_iops,
            },
        );
        disk.throttle_this_process();
        Ok(ThrottledDisk(disk))
    }

    /// The mounted filesystem's root (writable by root).
    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Renders the window's content (header bar and page) with GTK's own renderer and saves it as
/// a PNG, the size of the window's content (800×480 for [`new_window`]).
pub fn save_png(window: &Window, path: &Path) {
    wait_until("the page transition to end", || window.page_settled());
    iterate_briefly();
    let content = window.content().expect("the window has content");
    let (width, height) = (content.width(), content.height());
    assert!(width > 0 && height > 0, "the window is shown");
    // A running test changes labels ten times a second: lay the content out now, at the
    // origin, so that it is drawn from a complete layout (GTK skips a widget whose layout is
    // pending); the next frame lays it out again in place.
    let _ = content.measure(gtk::Orientation::Vertical, width);
    content.allocate(width, height, -1, None);
    let (w, h) = (width as f32, height as f32);
    let snapshot = gtk::Snapshot::new();
    #[allow(deprecated)] // StyleContext::lookup_color: the GTK 4.8 way.
    let background = content
        .style_context()
        .lookup_color("window_bg_color")
        .unwrap_or(gdk::RGBA::WHITE);
    let bounds = graphene::Rect::new(0.0, 0.0, w, h);
    snapshot.append_color(&background, &bounds);
    content
        .parent()
        .expect("the content is in the window")
        .snapshot_child(&content, &snapshot);
    let node = snapshot.to_node().expect("something was drawn");
    let renderer = window.renderer().expect("the window is realized");
    let texture = renderer.render_texture(&node, Some(&bounds));
    let stride = texture.width() as usize * 4;
    let mut pixels = vec![0u8; stride * texture.height() as usize];
    texture.download(&mut pixels, stride);
    let first = &pixels[..4];
    assert!(
        pixels.chunks(4).any(|p| p != first),
        "{}: the picture is blank",
        path.display()
    );
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("the screenshots folder");
    }
    texture
        .save_to_png(path)
        .unwrap_or_else(|e| panic!("saving {}: {e}", path.display()));
    println!("  wrote {} ({w}×{h})", path.display());
}

/// The suffix of a screenshot's file name for the language the app runs in: `""` for English
/// (the plain names docs/app.md shows), `-de`, `-ja`, … from `LANGUAGE` otherwise.
pub fn screenshot_suffix() -> String {
    match std::env::var("LANGUAGE")
        .ok()
        .and_then(|l| l.split([':', '_', '.']).next().map(str::to_owned))
        .filter(|l| !l.is_empty() && l != "en" && l != "C")
    {
        Some(lang) => format!("-{lang}"),
        None => String::new(),
    }
}

/// For screenshots in another language (`LANGUAGE=de`, `ja`, …): binds the catalogues in
/// `$AGNOSTICS_LOCALEDIR` (tools/screenshots points it at core's build tree), as the app's own
/// start does. The tests themselves run in English, so this is only for the renderers.
pub fn bind_screenshot_language() {
    if let Some(dir) = std::env::var_os("AGNOSTICS_LOCALEDIR") {
        agnostics_core::i18n::init(Path::new(&dir));
    }
}

/// For a renderer's screenshots in the language `LANGUAGE` names (`en` when unset): that
/// language, and for any other its catalogue compiled from `po/` and bound, so that windows
/// built after this speak it (the folder returned holds the catalogue: keep it). Only for a
/// renderer run alone (`-- renders_…`, as tools/screenshots does): the tests read English.
pub fn screenshot_language() -> (String, Option<tempfile::TempDir>) {
    let lang = std::env::var("LANGUAGE")
        .ok()
        .and_then(|l| l.split([':', '_', '.']).next().map(str::to_owned))
        .filter(|l| !l.is_empty() && l != "C")
        .unwrap_or_else(|| "en".into());
    if lang == "en" {
        return (lang, None);
    }
    let scratch = scratch_dir();
    let catalogues = agnostics_testkit::locale::catalogue_dir(scratch.path());
    agnostics_testkit::locale::compile_catalogues(&catalogues, &[lang.as_str()]);
    agnostics_core::i18n::init(&catalogues);
    (lang, Some(scratch))
}

/// Saves the window as it is now at 800×480 and at 360×480 (its content), with `save`, to
/// `$AGNOSTICS_SCREENSHOTS/NAME-LANG.png` and `NAME-360-LANG.png`; the window is left at
/// 800×480.
pub fn shoot_both_widths(window: &Window, name: &str, lang: &str, save: impl Fn(&Path)) {
    let out = PathBuf::from(std::env::var_os("AGNOSTICS_SCREENSHOTS").expect("the folder"));
    for (width, infix) in [(800, String::new()), (360, "-360".to_owned())] {
        let content = window.content().expect("the window has content");
        let (frame_w, frame_h) = (
            window.default_width() - content.width(),
            window.default_height() - content.height(),
        );
        window.set_default_size(width + frame_w.max(0), 480 + frame_h.max(0));
        let fits = try_wait_until(Duration::from_secs(30), || {
            content.width() == width && content.height() == 480
        });
        let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
        assert!(
            fits,
            "{name}: the window's content is {}×{}, not {width}×480 (it needs {min_w} px)",
            content.width(),
            content.height()
        );
        wait_until("the page transition to end", || window.page_settled());
        for _ in 0..3 {
            iterate_briefly();
        }
        // Laid out now, as [`save_png`] does, for pictures drawn another way (a dialog over
        // the window): GTK skips drawing a widget whose layout is pending.
        let _ = content.measure(gtk::Orientation::Vertical, width);
        content.allocate(width, 480, -1, None);
        save(&out.join(format!("{name}{infix}-{lang}.png")));
    }
    let content = window.content().expect("the window has content");
    let frame_w = window.default_width() - content.width();
    window.set_default_size(800 + frame_w.max(0), window.default_height());
    wait_until("the window back at 800", || content.width() == 800);
}

/// `widget` and everything inside it, depth first (popovers included: they are children of
/// their parent).
pub fn descendants(widget: &gtk::Widget) -> Vec<gtk::Widget> {
    let mut found = vec![widget.clone()];
    let mut child = widget.first_child();
    while let Some(c) = child {
        found.extend(descendants(&c));
        child = c.next_sibling();
    }
    found
}

/// The window's smallest size fits a Raspberry Pi touchscreen (800×480): nothing is clipped.
pub fn assert_fits_800x480(window: &Window, state: &str) {
    iterate_briefly();
    let content = window.content().expect("content");
    let (min_w, _, _, _) = content.measure(gtk::Orientation::Horizontal, -1);
    let (min_h, _, _, _) = content.measure(gtk::Orientation::Vertical, 800);
    assert!(
        min_w <= 800 && min_h <= 480,
        "{state}: needs at least {min_w}×{min_h}"
    );
    assert!(
        content.width() <= 800 && content.height() <= 480,
        "{state}: the window grew to {}×{}",
        content.width(),
        content.height()
    );
}

/// The log the tests write (`$AGNOSTICS_LOG`, set by `main`).
pub fn log_path() -> PathBuf {
    std::env::var_os("AGNOSTICS_LOG")
        .expect("AGNOSTICS_LOG")
        .into()
}

/// The log, bytes that are not UTF-8 replaced.
pub fn read_log() -> String {
    String::from_utf8_lossy(&std::fs::read(log_path()).expect("the log")).into_owned()
}

/// A folder of test scripts: one that passes, one that fails with status 3, one whose name is
/// markup characters, then (with `slow`) one that sleeps, or (without) one that prints
/// non-UTF-8 bytes and 2 MB.
pub fn script_folder(dir: &std::path::Path, slow: bool) -> PathBuf {
    let folder = dir.join("scripts");
    std::fs::create_dir_all(&folder).expect("the scripts folder");
    let mut scripts = vec![
        (
            "pass.sh",
            "#NAME=Passes\n#DESC=Exits with status 0\necho all fine\n",
        ),
        (
            "fail.sh",
            "#NAME=Fails\n#DESC=Exits with status 3\necho broken >&2\nexit 3\n",
        ),
        (
            "markup.sh",
            "#NAME=<b>&</b>\n#DESC=Named <i>like markup</i> & more\necho ok\n",
        ),
    ];
    if !slow {
        scripts.push((
            "big.sh",
            "#NAME=Big output\n#DESC=Prints 2 MB\nprintf '\\377\\n'; head -c 2000000 /dev/zero | tr '\\0' x\n",
        ));
    }
    if slow {
        scripts.push(("slow.sh", "#NAME=Slow\n#DESC=Sleeps a minute\nsleep 60\n"));
    }
    for (file, text) in scripts {
        std::fs::write(folder.join(file), text).expect("a script");
    }
    folder
}

/// Lists the scripts in `folder` alone: `$XDG_DATA_DIRS` names an empty folder while the
/// window reads it.
pub fn list_scripts(window: &Window, folder: PathBuf, empty: &std::path::Path) {
    let before = std::env::var_os("XDG_DATA_DIRS");
    std::env::set_var("XDG_DATA_DIRS", empty);
    window.set_script_dirs(vec![folder]);
    match before {
        Some(value) => std::env::set_var("XDG_DATA_DIRS", value),
        None => std::env::remove_var("XDG_DATA_DIRS"),
    }
    wait_until("the list of tests", || window.scripts_loaded());
}

/// Every label inside `widget`.
pub fn labels(widget: &gtk::Widget) -> Vec<gtk::Label> {
    descendants(widget)
        .into_iter()
        .filter_map(|w| w.downcast::<gtk::Label>().ok())
        .collect()
}

/// The `main` of a UI test program whose tests read and write the default log and history:
/// points `AGNOSTICS_LOG` and `AGNOSTICS_HISTORY` into a scratch folder (the tester's own
/// `~/rpdiags.txt` and history stay out of it; set before any thread starts, so call it first),
/// runs `tests` one after another on this thread (GTK's), and `screenshots` too when
/// `AGNOSTICS_SCREENSHOTS` is set (in the language bound for them). Exits with the harness's
/// status; the scratch folder is removed first.
pub fn run_with_scratch_log_and_history(
    mut tests: Vec<agnostics_testkit::harness::Test>,
    screenshots: Vec<agnostics_testkit::harness::Test>,
) -> ! {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var(
        "AGNOSTICS_HISTORY",
        scratch.path().join("default-history.sqlite3"),
    );
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        use_screenshot_locale(scratch.path());
        bind_screenshot_language();
        tests.extend(screenshots);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// For screenshots in German or Japanese (`LANGUAGE`): that language's glibc locale, built with
/// `localedef` into `dir`, for its numbers (a decimal comma in German); before any thread starts.
pub fn use_screenshot_locale(dir: &std::path::Path) {
    let lang = screenshot_suffix();
    let built = match lang.as_str() {
        "-de" => agnostics_testkit::locale::german_locale(dir),
        "-ja" => agnostics_testkit::locale::japanese_locale(dir),
        _ => return,
    };
    match built {
        Ok(name) => {
            std::env::set_var("LOCPATH", dir);
            std::env::set_var("LC_ALL", name);
        }
        Err(skip) => eprintln!("numbers as in English: {}", skip.0),
    }
}
