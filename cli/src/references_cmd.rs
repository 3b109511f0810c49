//! `agnostics-cli references [--json]`: every published figure shipped with the program
//! (`data/references/*.toml`), a block per source (title, publisher, year, method, address)
//! with a line per row (device, capacity, Raspberry Pi model, figures), or with `--json` the
//! sources as shipped: `[{source: {url, read_at, title, publisher, short, date, method,
//! method_wording}, rows: [{device, capacity, pi_model, interface, figures: [{phase, value,
//! unit}]}]}]`.

use agnostics_core::exit_code::ExitCode;
use agnostics_core::figure::{nearest_text, Unit};
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::references::{matching::what, sources, Method, Source};

use crate::args::ReferencesArgs;
use crate::output::{emit, To};

/// Runs the subcommand; returns the exit status (0, or 2 when stdout fails).
pub fn main(args: &ReferencesArgs) -> i32 {
    if args.json {
        return match serde_json::to_string_pretty(sources()) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        };
    }
    let mut out = String::new();
    for (i, s) in sources().iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&block(s));
    }
    emit(To::Stdout, out)
}

/// One source: its heading lines, then a line per row.
fn block(s: &Source) -> String {
    let info = &s.source;
    let method = match info.method {
        Method::Standard => gettext("compare with the standard test"),
        Method::Qd1 => gettext("compare with the qd1 profile"),
    };
    let mut out = format!(
        "{} — {}, {} ({method})\n{}\n",
        info.title, info.publisher, info.date, info.url
    );
    out.push_str(&fill(
        &gettext("Measured: {method}"),
        &[("method", &info.method_wording)],
    ));
    out.push('\n');
    let width = s
        .rows
        .iter()
        .map(|r| r.device.chars().count() + r.capacity.chars().count() + 1)
        .max()
        .unwrap_or(0);
    for row in &s.rows {
        let figures: Vec<String> = row
            .figures
            .iter()
            .map(|f| {
                let decimals = if f.unit == Unit::Iops { 0 } else { 2 };
                format!(
                    "{} {} {}",
                    what(&f.phase),
                    nearest_text(f.value, decimals),
                    f.unit.as_str()
                )
            })
            .collect();
        let name = format!("{} {}", row.device, row.capacity);
        out.push_str(&format!(
            "  {name:<width$}  {}  {}\n",
            row.pi_model,
            figures.join(", ")
        ));
    }
    out
}
