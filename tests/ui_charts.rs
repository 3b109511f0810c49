//! The charts in Japanese on a real display (run under `xvfb-run -a cargo test -p agnostics
//! --test ui_charts`): every string the live chart and the trend charts draw (tick labels,
//! units, axis names, legend, the A1 label) is laid out by Pango with fontconfig's fallback,
//! and no character of it is a missing-glyph box, with the Japanese font Debian and Raspberry
//! Pi OS install (Droid Sans Fallback, package fonts-droid-fallback, which has no Latin
//! digits); and a first session's runs minutes apart get a place and a label each on the
//! trend chart, with the A1 target dashed on the charts of the phases it grades.
//!
//! Its own test binary (`harness = false`): the language is chosen once per process, before
//! GTK starts (`ja_JP.UTF-8` built with `localedef`, the catalogue compiled with `msgfmt`).
//! With `AGNOSTICS_SCREENSHOTS=DIR` the charts are saved as `DIR/chart-{live,trend-rate,
//! trend-iops}-ja.png`.

use agnostics_testkit::locale;
#[path = "ui_support/mod.rs"]
mod support;

use std::path::Path;
use std::sync::OnceLock;

use adw::prelude::*;
use agnostics::pages::history::labels::a1_target;
use agnostics::widgets::chart_text::DrawnText;
use agnostics::widgets::trend_chart::{TrendPoint, TrendSeries};
use agnostics::widgets::{Chart, TrendChart};
use agnostics::Application;
use agnostics_core::engine::Sample;
use agnostics_core::figure::Unit;
use agnostics_core::history::phase_label;
use agnostics_testkit::Skip;
use chrono::DateTime;
use gtk::{gdk, graphene};

use support::*;

/// Why the Japanese locale could not be built, when it could not.
static JAPANESE_MISSING: OnceLock<Option<String>> = OnceLock::new();

fn main() {
    let scratch = locale::scratch_dir("ui-charts-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &["ja"]);
    let locpath = scratch.path().join("locpath");
    std::fs::create_dir_all(&locpath).expect("create LOCPATH");
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    let japanese = locale::japanese_locale(&locpath);
    let _ = JAPANESE_MISSING.set(japanese.as_ref().err().map(|skip| skip.0.clone()));
    std::env::set_var("LOCPATH", &locpath);
    std::env::set_var("LC_ALL", *japanese.as_ref().unwrap_or(&"C.UTF-8"));
    std::env::set_var("LANGUAGE", "ja");
    agnostics_core::i18n::init(&catalogues);

    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(crate::ui_tests![
        japanese_charts_draw_no_missing_glyph,
        runs_minutes_apart_each_get_a_place_and_the_a1_target_is_dashed,
        the_a1_line_stands_out_in_the_light_and_the_dark_style,
        the_live_charts_a1_line_stands_out_over_its_bars_in_both_styles,
        two_a1_labels_never_overprint,
    ]);
    drop(scratch);
    conclusion.exit()
}

/// `widget` in a window of its own, `width` × `height`, drawn at least once.
fn shown(widget: &impl IsA<gtk::Widget>, width: i32, height: i32) -> gtk::Window {
    let window = gtk::Window::new();
    window.set_default_size(width, height);
    window.set_child(Some(widget));
    window.present();
    window
}

/// `widget` rendered by GTK on the window's background.
fn texture(window: &gtk::Window, widget: &impl IsA<gtk::Widget>) -> gdk::Texture {
    let (w, h) = (widget.width() as f32, widget.height() as f32);
    let snapshot = gtk::Snapshot::new();
    #[allow(deprecated)] // StyleContext::lookup_color: the GTK 4.8 way.
    let background = window
        .style_context()
        .lookup_color("window_bg_color")
        .unwrap_or(gdk::RGBA::WHITE);
    let bounds = graphene::Rect::new(0.0, 0.0, w, h);
    snapshot.append_color(&background, &bounds);
    window.snapshot_child(widget, &snapshot);
    let node = snapshot.to_node().expect("something was drawn");
    let renderer = window.renderer().expect("the window is realized");
    renderer.render_texture(&node, Some(&bounds))
}

/// Saves `widget` as `DIR/chart-NAME-LANG.png` with `AGNOSTICS_SCREENSHOTS=DIR`.
fn save_chart_png(window: &gtk::Window, widget: &impl IsA<gtk::Widget>, name: &str) {
    let Some(dir) = std::env::var_os("AGNOSTICS_SCREENSHOTS") else {
        return;
    };
    let lang = std::env::var("LANGUAGE").unwrap_or_default();
    let path = Path::new(&dir).join(format!("chart-{name}-{lang}.png"));
    std::fs::create_dir_all(&dir).expect("the screenshots folder");
    texture(window, widget)
        .save_to_png(&path)
        .expect("save the PNG");
    println!("  wrote {}", path.display());
}

/// WCAG's relative luminance of an sRGB colour.
fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let lin = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.039_28 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG's contrast ratio of two colours (1 to 21).
fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Asserts that nothing drawn has a missing glyph, and that `expected` were drawn.
fn assert_all_glyphs(what: &str, drawn: &[DrawnText], expected: &[String]) {
    let boxed: Vec<&DrawnText> = drawn.iter().filter(|d| d.unknown_glyphs != 0).collect();
    assert!(boxed.is_empty(), "{what}: missing glyphs in {boxed:?}");
    for text in expected {
        assert!(
            drawn.iter().any(|d| &d.text == text),
            "{what}: {text:?} not drawn through Pango: {drawn:?}"
        );
    }
}

fn at(text: &str, value: f64) -> TrendPoint {
    TrendPoint {
        when: DateTime::parse_from_rfc3339(text).unwrap(),
        value,
    }
}

/// A trend series of the standard phase `phase` (a fio job name) in `unit`, at `points`.
fn series(phase: &str, unit: Unit, points: &[(&str, f64)]) -> TrendSeries {
    TrendSeries {
        name: phase_label(phase),
        points: points.iter().map(|(t, v)| at(t, *v)).collect(),
        target: a1_target(phase, unit),
    }
}

const FIRST_SESSION: [&str; 3] = [
    "2026-12-04T10:00:00+09:00",
    "2026-12-04T10:03:00+09:00",
    "2026-12-04T10:07:00+09:00",
];

/// The trend charts of three runs minutes apart: (transfer rate, IOPS).
fn first_session_charts() -> (TrendChart, TrendChart) {
    let s = FIRST_SESSION;
    let rate = TrendChart::new();
    rate.set_series(
        "Transfer rate",
        Unit::BytesPerSecond,
        vec![
            series(
                "seq-write",
                Unit::BytesPerSecond,
                &[(s[0], 12.6e6), (s[1], 12.1e6), (s[2], 9.1e6)],
            ),
            series(
                "seq-read",
                Unit::BytesPerSecond,
                &[(s[0], 43e6), (s[1], 44e6), (s[2], 41e6)],
            ),
        ],
    );
    let iops = TrendChart::new();
    iops.set_series(
        "IOPS",
        Unit::Iops,
        vec![
            series(
                "rand-4k-write",
                Unit::Iops,
                &[(s[0], 612.0), (s[1], 580.0), (s[2], 530.0)],
            ),
            series(
                "rand-4k-read",
                Unit::Iops,
                &[(s[0], 2100.0), (s[1], 2050.0), (s[2], 1990.0)],
            ),
        ],
    );
    (rate, iops)
}

/// Finding: the Japanese charts drew boxes for digits, units, dates and "4K" where the only
/// CJK font is Droid Sans Fallback: cairo's plain text used one font for each whole string.
fn japanese_charts_draw_no_missing_glyph(_app: &Application) -> agnostics_testkit::Ran {
    if let Some(Some(why)) = JAPANESE_MISSING.get() {
        return Err(Skip(why.clone()));
    }
    let fonts = std::process::Command::new("fc-list")
        .arg(":lang=ja")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !fonts.contains("Droid Sans Fallback") {
        return Err(Skip(
            "needs Droid Sans Fallback, the Japanese font of Raspberry Pi OS: install fonts-droid-fallback (tools/setup)".into(),
        ));
    }
    let live = rising_random_writes(6, 600.0);
    let window = shown(&live, 640, 160);
    wait_until("the live chart to draw", || !live.drawn_text().is_empty());
    assert_all_glyphs(
        "live chart",
        &live.drawn_text(),
        &[live.x_axis_name(), live.y_axis_name(), "600".into()],
    );
    assert_ne!(live.x_axis_name(), "Seconds", "the chart is in Japanese");
    save_chart_png(&window, &live, "live");
    window.destroy();

    let (rate, iops) = first_session_charts();
    for (chart, name) in [(&rate, "trend-rate"), (&iops, "trend-iops")] {
        let window = shown(chart, 640, 260);
        wait_until("the trend chart to draw", || {
            !chart.drawing().text.is_empty()
        });
        let mut expected: Vec<String> = chart.series().iter().map(|s| s.name.clone()).collect();
        expected.push("A1".into());
        expected.push("10:03".into());
        assert_all_glyphs(name, &chart.drawing().text, &expected);
        save_chart_png(&window, chart, name);
        window.destroy();
    }
    Ok(())
}

/// Finding: runs minutes apart fell on one vertical line under one date label, and the
/// charts had no target line.
fn runs_minutes_apart_each_get_a_place_and_the_a1_target_is_dashed(_app: &Application) {
    let (rate, iops) = first_session_charts();
    for chart in [&rate, &iops] {
        let window = shown(chart, 640, 260);
        wait_until("the trend chart to draw", || {
            !chart.drawing().text.is_empty()
        });
        let drawing = chart.drawing();
        for points in &drawing.points {
            let mut xs: Vec<i32> = points.iter().map(|p| p.0).collect();
            xs.dedup();
            assert_eq!(xs.len(), 3, "three places across: {points:?}");
            assert!(xs.windows(2).all(|w| w[1] - w[0] >= 100), "{xs:?}");
        }
        let labels: Vec<&str> = drawing.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["10:00", "10:03", "10:07"]);
        let tick_xs: Vec<i32> = drawing.ticks.iter().map(|t| t.0 .0).collect();
        assert_eq!(
            tick_xs,
            drawing.points[0].iter().map(|p| p.0).collect::<Vec<_>>()
        );
        window.destroy();
    }
    // The A1 target where it grades: sequential write (10 000 KiB/s) and random 4K write
    // and read (500 and 1500 IOPS); none for sequential read.
    let rate_series = rate.series();
    assert_eq!(rate_series[0].target, Some(10_240_000.0));
    assert_eq!(rate_series[1].target, None);
    let on: Vec<usize> = rate.drawing().targets.iter().map(|t| t.series).collect();
    assert_eq!(on, [0], "the A1 line on sequential write only");
    let iops_series = iops.series();
    assert_eq!(iops_series[0].target, Some(500.0));
    assert_eq!(iops_series[1].target, Some(1500.0));
    let lines = iops.drawing().targets;
    assert_eq!(lines.iter().map(|t| t.series).collect::<Vec<_>>(), [0, 1]);
    // 1500 IOPS is drawn higher (a smaller y) than 500.
    assert!(lines[1].from.1 < lines[0].from.1, "{lines:?}");
    // The target line sits between the write points above it and the axis.
    let write = &iops.drawing().points[0];
    assert!(
        write.iter().all(|p| p.1 < lines[0].from.1 + 1),
        "{write:?} {lines:?}"
    );
    assert!(iops.description().contains("A1"), "{}", iops.description());
}

/// The dashed A1 line against the chart's background, in the light and the dark style: at
/// least 3:1 (WCAG's minimum for the parts of a graphic one needs to read it).
fn the_a1_line_stands_out_in_the_light_and_the_dark_style(_app: &Application) {
    let style = adw::StyleManager::default();
    for scheme in [adw::ColorScheme::ForceLight, adw::ColorScheme::ForceDark] {
        style.set_color_scheme(scheme);
        let (rate, _) = first_session_charts();
        let window = shown(&rate, 640, 260);
        wait_until("the trend chart to draw", || {
            !rate.drawing().text.is_empty()
        });
        iterate_briefly();
        let line = rate.drawing().targets[0];
        let image = texture(&window, &rate);
        let stride = image.width() as usize * 4;
        let mut pixels = vec![0u8; stride * image.height() as usize];
        image.download(&mut pixels, stride);
        // Cairo's byte order: blue, green, red, alpha (opaque here: the window's background
        // is under the chart).
        let at = |x: i32, y: i32| {
            let i = y as usize * stride + x as usize * 4;
            [pixels[i + 2], pixels[i + 1], pixels[i]]
        };
        // The background a few pixels above the line, where nothing else is drawn (the
        // write series' points are above 12 MB/s, the line at 10.24 MB/s).
        let background = at(line.from.0 + 20, line.from.1 - 5);
        let best = (line.from.0 + 1..line.to.0 - 1)
            .map(|x| contrast(at(x, line.from.1), background))
            .fold(0.0_f64, f64::max);
        println!("  {scheme:?}: A1 line {best:.1}:1 against {background:?}");
        assert!(best >= 3.0, "{scheme:?}: the A1 line is {best:.2}:1");
        window.destroy();
    }
    style.set_color_scheme(adw::ColorScheme::Default);
}

/// Finding: the live chart's dashed A1 line over a bar was 1.9:1 (dark) and 2.9:1 (light). On
/// GTK's rendering, in each style: the chart draws in that style's palette (it follows
/// `adw::StyleManager`), and where the line crosses a bar it is 3:1 or more against the band
/// under it, which is 3:1 or more against the bar.
fn the_live_charts_a1_line_stands_out_over_its_bars_in_both_styles(_app: &Application) {
    use agnostics::palette::ChartPalette;
    let style = adw::StyleManager::default();
    for scheme in [adw::ColorScheme::ForceLight, adw::ColorScheme::ForceDark] {
        style.set_color_scheme(scheme);
        let palette = ChartPalette::current();
        // Random writes above their 500 IOPS target: the line crosses every bar.
        let live = rising_random_writes(8, 700.0);
        let window = shown(&live, 640, 200);
        // Drawn at its size in the window (not at the size of a first, smaller frame).
        wait_until("the live chart at its size", || {
            live.width() == 640 && live.height() == 200 && !live.drawn_text().is_empty()
        });
        iterate_briefly();
        let image = texture(&window, &live);
        let stride = image.width() as usize * 4;
        let mut pixels = vec![0u8; stride * image.height() as usize];
        image.download(&mut pixels, stride);
        let at = |x: usize, y: usize| {
            let i = y * stride + x * 4;
            [pixels[i + 2], pixels[i + 1], pixels[i]]
        };
        let near = |p: [u8; 3], c: agnostics::palette::Rgb| {
            p.iter()
                .zip([c.0, c.1, c.2])
                .all(|(a, b)| a.abs_diff(b) <= 3)
        };
        let (w, h) = (image.width() as usize, image.height() as usize);
        // The line's row: the one with most pixels of the reference colour.
        let line_y = (6..h - 6)
            .max_by_key(|&y| {
                (0..w)
                    .filter(|&x| near(at(x, y), palette.reference))
                    .count()
            })
            .expect("rows");
        let crossings: Vec<usize> = (0..w)
            .filter(|&x| {
                near(at(x, line_y), palette.reference) && near(at(x, line_y - 8), palette.bar)
            })
            .collect();
        assert!(
            crossings.len() > 20,
            "{scheme:?}: the line crosses bars of the style's colour {:?} at row {line_y}",
            palette.bar
        );
        let worst = crossings
            .iter()
            .map(|&x| {
                let (line, band, bar) = (at(x, line_y), at(x, line_y - 2), at(x, line_y - 8));
                contrast(line, band).min(contrast(band, bar))
            })
            .fold(f64::INFINITY, f64::min);
        println!("  {scheme:?}: A1 line over a bar, worst of line/band and band/bar {worst:.2}:1");
        assert!(worst >= 3.0, "{scheme:?}: {worst:.2}:1");
        window.destroy();
    }
    style.set_color_scheme(adw::ColorScheme::Default);
}

/// A live chart of `seconds` one-second samples of random 4 KiB writes rising by 10 IOPS a
/// second from `from` IOPS, against the A1 target of 500 IOPS.
fn rising_random_writes(seconds: u32, from: f64) -> Chart {
    let live = Chart::new();
    let samples: Vec<Sample> = (1..=seconds)
        .map(|i| Sample {
            t_s: f64::from(i),
            bw_bytes: 0.0,
            iops: from + 10.0 * f64::from(i),
        })
        .collect();
    live.set_samples(
        &phase_label("rand-4k-write"),
        true,
        &samples,
        Some(500.0),
        None,
    );
    live
}

/// Finding: on a fast drive's IOPS chart the two A1 lines (500 and 1500 IOPS) lay a pixel
/// apart and their two "A1" labels overprinted. The lower label moves down clear of the other.
fn two_a1_labels_never_overprint(_app: &Application) {
    let s = FIRST_SESSION;
    let iops = TrendChart::new();
    iops.set_series(
        "IOPS",
        Unit::Iops,
        vec![
            series(
                "rand-4k-write",
                Unit::Iops,
                &[(s[0], 90_000.0), (s[1], 95_000.0)],
            ),
            series(
                "rand-4k-read",
                Unit::Iops,
                &[(s[0], 240_000.0), (s[1], 250_000.0)],
            ),
        ],
    );
    let window = shown(&iops, 640, 260);
    wait_until("the trend chart to draw", || {
        !iops.drawing().text.is_empty()
    });
    let lines = iops.drawing().targets;
    assert_eq!(lines.len(), 2);
    assert!(
        (lines[0].from.1 - lines[1].from.1).abs() < 8,
        "the lines lie close: {lines:?}"
    );
    // Each label is at least 12 px high (its font's size): the two tops are that far apart.
    assert!(
        (lines[0].label_top - lines[1].label_top).abs() >= 12,
        "{lines:?}"
    );
    window.destroy();
}
