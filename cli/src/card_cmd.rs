//! `agnostics-cli card [--device NAME] [--sysfs-root DIR] [--json]`: identify the card or drive
//! (by default the one behind the default target) and print what its registers and sysfs say,
//! as a readable block or as the JSON `card` object. Exit status 0, or 2 when the device is
//! unknown.

use std::fmt::Write;

use agnostics_core::card::{self, CardInfo, RegisterState};
use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::target_dir;
use agnostics_core::target_dir::Transport;
use agnostics_core::units::human_bytes;

use crate::args::CardArgs;
use crate::output::{emit, To};

/// Runs the subcommand; returns the exit status.
pub fn main(args: &CardArgs) -> i32 {
    let disk = match &args.device {
        Some(d) => d.trim_start_matches("/dev/").to_owned(),
        None => match default_disk(&args.sysfs_root) {
            Ok(disk) => disk,
            Err(message) => {
                emit(To::Stderr, format!("agnostics-cli: {message}\n"));
                return ExitCode::NoVerdict.code();
            }
        },
    };
    if disk.is_empty()
        || disk == "."
        || disk == ".."
        || disk.contains('/')
        || disk
            .chars()
            .any(|c| c.is_control() || agnostics_core::report::is_bidi_control(c))
    {
        emit(To::Stderr, format!(
            "agnostics-cli: {}\n",
            fill(
                &gettext("“{device}” is not a device name such as mmcblk0 or sda; see `lsblk` for the names"),
                &[("device", &agnostics_core::report::visible(&disk))],
            )
        ));
        return ExitCode::NoVerdict.code();
    }
    let Some(info) = card::identify(&args.sysfs_root, &disk) else {
        emit(To::Stderr, format!(
            "agnostics-cli: {}\n",
            fill(
                &gettext("unknown device {device}: {root}/block/{device} does not exist; see `lsblk` for the names"),
                &[
                    ("device", &agnostics_core::report::visible(&disk)),
                    (
                        "root",
                        &agnostics_core::report::visible(&args.sysfs_root.to_string_lossy()),
                    ),
                ],
            )
        ));
        return ExitCode::NoVerdict.code();
    };
    if args.json {
        return match json_document(&info) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        };
    }
    emit(To::Stdout, to_text(&info))
}

/// The disk behind the default target; when that tells none (nothing mounted from the card,
/// no `/var/tmp`, a folder not on a block device), the machine's one SD card. Errors: why no
/// disk was found, in words, with the advice to name one.
fn default_disk(sysfs_root: &std::path::Path) -> Result<String, String> {
    let dir = target_dir::default_target(sysfs_root);
    let problem = match target_dir::inspect(&dir, sysfs_root) {
        Ok(info) => match info.device {
            Some(d) => return Ok(d.disk),
            None => fill(
                &gettext("{path} is not on a block device ({fs_type}); name one with --device, e.g. --device mmcblk0"),
                &[("path", &dir.display()), ("fs_type", &info.fs_type)],
            ),
        },
        Err(e) => e.to_string(),
    };
    card::sole_sd_card(sysfs_root).ok_or(problem)
}

/// The card as JSON (the `CardInfo` document), with `cqe_quirk` added when the kernel's
/// quirk table names the card: the entry (`maker`, `card`, `mid`, `oid`, `pnm`, `year`,
/// `month`, `reason`, `source`, `commit`).
fn json_document(info: &CardInfo) -> serde_json::Result<String> {
    let mut doc = serde_json::to_value(info)?;
    let quirk = info
        .cid
        .as_ref()
        .and_then(agnostics_core::references::cqe_quirk);
    if let (serde_json::Value::Object(map), Some(q)) = (&mut doc, quirk) {
        map.insert("cqe_quirk".to_owned(), serde_json::to_value(q)?);
    }
    serde_json::to_string_pretty(&doc)
}

/// Rows of label and value, aligned.
struct Block(Vec<(String, String)>);

impl Block {
    fn row(&mut self, label: String, value: impl Into<String>) {
        self.0.push((label, value.into()));
    }

    fn opt(&mut self, label: String, value: Option<String>) {
        if let Some(v) = value {
            self.row(label, v);
        }
    }

    fn render(&self) -> String {
        let w = self
            .0
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for (l, v) in &self.0 {
            let _ = writeln!(out, "{l:<w$}  {v}");
        }
        out
    }
}

/// How a register fared, for people.
fn state_text(s: RegisterState) -> String {
    match s {
        RegisterState::Missing => gettext("not exposed by this kernel or reader"),
        RegisterState::AllZero => gettext("all zeros: the card reported nothing"),
        RegisterState::Invalid => gettext("unreadable"),
        RegisterState::Decoded => gettext("decoded"),
    }
}

fn rating(value: Option<u8>, prefix: &str) -> String {
    match value {
        Some(0) => gettext("none"),
        Some(v) => format!("{prefix}{v}"),
        None => gettext("reserved value"),
    }
}

/// The readable block: identity, capacity, claimed ratings, register states, link, warnings.
pub fn to_text(c: &CardInfo) -> String {
    let mut b = Block(Vec::new());
    b.row(
        gettext("Device:"),
        format!("{} ({})", c.device, c.kind.card_kind_str()),
    );
    b.opt(gettext("Model:"), c.model.clone());
    identity_rows(&mut b, c);
    size_rows(&mut b, c);
    sd_rows(&mut b, c);
    register_rows(&mut b, c);
    bus_rows(&mut b, c);
    host_rows(&mut b, c);
    let mut out = b.render();
    for w in &c.warnings {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Warning: {warning}"), &[("warning", w)])
        );
    }
    // What the card's state means without a measurement: misaligned partitions, a worn eMMC.
    for f in card::findings(Some(c), &[]) {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Finding: {finding}"), &[("finding", &f.text())])
        );
    }
    out
}

/// What only the host's own interfaces tell: command queueing (and whether A2 is graded), each
/// partition's alignment, an eMMC's wear.
fn host_rows(b: &mut Block, c: &CardInfo) {
    if let Some(q) = &c.command_queueing {
        b.row(gettext("Command queueing:"), q.describe());
        if let Some(quirk) = c
            .cid
            .as_ref()
            .and_then(agnostics_core::references::cqe_quirk)
        {
            b.row(gettext("Known trouble:"), quirk.describe());
        }
        if let Some(reason) = c.a2_not_graded_reason() {
            b.row(
                gettext("A2 grading:"),
                fill(&gettext("not graded: {reason}"), &[("reason", &reason)]),
            );
        }
    }
    if let Some(erase) = c
        .sysfs
        .as_ref()
        .and_then(|s| s.preferred_erase_size.as_deref())
        .and_then(agnostics_core::sysfs::parse_num)
        .filter(|e| *e > 0)
    {
        b.row(gettext("Erase size:"), human_bytes(erase));
    }
    for (i, p) in c.partitions.iter().enumerate() {
        let label = if i == 0 {
            gettext("Partitions:")
        } else {
            String::new()
        };
        b.row(label, p.describe());
    }
    if let Some(w) = &c.emmc_wear {
        b.row(gettext("eMMC wear:"), w.describe());
    }
}

/// The card's identity from its CID (or the kernel's readings of it): manufacturer, OEM,
/// product, revision, serial, date.
fn identity_rows(b: &mut Block, c: &CardInfo) {
    if let Some(id) = &c.cid {
        if let (Some(mid), Some(name)) = (id.mid, &id.manufacturer) {
            b.row(gettext("Manufacturer:"), format!("{name} (ID 0x{mid:02X})"));
            if let Some(note) = &id.manufacturer_note {
                b.row(String::new(), note.clone());
            }
        }
        b.opt(gettext("OEM ID:"), id.oid.clone());
        b.opt(
            gettext("Product:"),
            id.pnm.as_ref().map(|p| format!("{p:?}")),
        );
        b.opt(gettext("Revision:"), id.prv.clone());
        b.opt(
            gettext("Serial:"),
            id.psn.map(|s| format!("0x{s:08x} ({s})")),
        );
        b.opt(gettext("Manufactured:"), id.mdt.clone());
        if id.source == card::cid::CidSource::Sysfs {
            b.row(
                String::new(),
                gettext("(from the kernel's readings; the CID itself is not exposed)"),
            );
        }
    }
}

/// The capacity the card reports and, when it differs, the size Linux sees.
fn size_rows(b: &mut Block, c: &CardInfo) {
    if let Some(cap) = c.capacity_bytes {
        b.row(
            gettext("Capacity:"),
            fill(
                &gettext("{human} ({bytes} bytes)"),
                &[("human", &human_bytes(cap)), ("bytes", &cap)],
            ),
        );
    }
    if let Some(size) = c.size_bytes.filter(|s| Some(*s) != c.capacity_bytes) {
        b.row(
            gettext("Size seen by Linux:"),
            fill(
                &gettext("{human} ({bytes} bytes)"),
                &[("human", &human_bytes(size)), ("bytes", &size)],
            ),
        );
    }
}

/// An SD card's claimed ratings (SD Status) and its SCR: version, bus widths, commands.
fn sd_rows(b: &mut Block, c: &CardInfo) {
    if matches!(c.kind, Transport::Sd) {
        match &c.ssr {
            Some(s) => {
                b.row(gettext("Speed Class:"), rating(s.speed_class, "Class "));
                b.row(gettext("UHS Speed Grade:"), rating(s.uhs_grade, "U"));
                b.row(gettext("Video Speed Class:"), rating(s.video_class, "V"));
                b.row(
                    gettext("App Performance:"),
                    s.app_perf_class
                        .clone()
                        .unwrap_or_else(|| gettext("not rated")),
                );
                b.opt(gettext("AU size:"), s.au_size_bytes.map(human_bytes));
            }
            None => b.row(gettext("SD Status:"), state_text(c.registers.ssr)),
        }
        match &c.scr {
            Some(s) => {
                b.row(gettext("SD version:"), s.version.clone());
                let widths: Vec<String> = s.bus_widths.iter().map(|w| format!("{w}-bit")).collect();
                b.row(gettext("Bus widths:"), widths.join(", "));
                if !s.commands.is_empty() {
                    b.row(gettext("Commands:"), s.commands.join(", "));
                }
            }
            None => b.row(gettext("SCR:"), state_text(c.registers.scr)),
        }
    }
}

/// How each register read: present, missing, all zeros, … (SD cards and eMMC).
fn register_rows(b: &mut Block, c: &CardInfo) {
    if matches!(c.kind, Transport::Sd | Transport::Emmc) {
        let r = &c.registers;
        b.row(
            gettext("Registers:"),
            format!(
                "CID {}, CSD {}{}",
                state_text(r.cid),
                state_text(r.csd),
                if c.kind == Transport::Sd {
                    format!(
                        ", SCR {}, SD Status {}",
                        state_text(r.scr),
                        state_text(r.ssr)
                    )
                } else {
                    String::new()
                }
            ),
        );
    }
}

/// What the bus says: the USB bridge, the NVMe firmware, the link.
fn bus_rows(b: &mut Block, c: &CardInfo) {
    if let Some(u) = &c.usb {
        b.opt(
            gettext("USB product:"),
            match (&u.manufacturer, &u.product) {
                (Some(m), Some(p)) => Some(format!("{m} {p}")),
                (m, p) => p.clone().or(m.clone()),
            },
        );
        b.opt(gettext("USB ID:"), u.id.clone());
        b.opt(gettext("USB version:"), u.usb_version.clone());
        b.opt(
            gettext("USB speed:"),
            u.speed_mbit.map(|s| format!("{s} Mbit/s")),
        );
    }
    if let Some(n) = &c.nvme {
        b.opt(gettext("Firmware:"), n.firmware_rev.clone());
    }
    if let Some(l) = &c.link {
        b.row(gettext("Link:"), card::link::describe(l));
    }
}
