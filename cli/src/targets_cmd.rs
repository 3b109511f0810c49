//! `agnostics-cli targets [--json]`: the writable mounted filesystems the test can run on, SD
//! cards first, as a table (path, filesystem, device, transport, model, free space) or as a
//! JSON array of `TargetInfo`.

use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::gettext;
use agnostics_core::target_dir::{self, TargetInfo};
use agnostics_core::units::human_bytes;

use crate::args::TargetsArgs;
use crate::output::{emit, To};

/// Runs the subcommand; returns the exit status (0, or 2 when JSON cannot be written).
pub fn main(args: &TargetsArgs) -> i32 {
    let targets = target_dir::list(&args.sysfs_root);
    if args.json {
        return match serde_json::to_string_pretty(&targets) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        };
    }
    if targets.is_empty() {
        return emit(
            To::Stdout,
            format!(
                "{}\n",
                gettext("No writable filesystem on a drive was found.")
            ),
        );
    }
    emit(To::Stdout, table(&targets))
}

/// The device column: the filesystem's device and, when different, the disk under it.
fn device_name(t: &TargetInfo) -> String {
    match &t.device {
        None => "—".into(),
        Some(d) if d.name == d.disk => d.name.clone(),
        Some(d) => format!("{} → {}", d.name, d.disk),
    }
}

fn table(targets: &[TargetInfo]) -> String {
    let header = [
        gettext("PATH"),
        // Translators: column heading, the filesystem type (ext4, vfat, …).
        gettext("FS"),
        gettext("DEVICE"),
        // Translators: column heading: SD, eMMC, USB, NVMe, virtio, loop, …
        gettext("TRANSPORT"),
        gettext("MODEL"),
        // Translators: column heading: free space, e.g. "21.3 GB".
        gettext("FREE"),
    ];
    let rows: Vec<[String; 6]> = targets
        .iter()
        .map(|t| {
            [
                t.path.display().to_string(),
                t.fs_type.clone(),
                device_name(t),
                t.transport.as_str().to_owned(),
                t.device
                    .as_ref()
                    .and_then(|d| d.model.clone())
                    .unwrap_or_else(|| "—".into()),
                human_bytes(t.free_bytes),
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(&header).chain(rows.iter()) {
        let mut line = String::new();
        for (i, (cell, w)) in r.iter().zip(widths).enumerate() {
            if i == 5 {
                // Free space is right-aligned so the figures line up.
                line.push_str(&format!("{cell:>w$}"));
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
