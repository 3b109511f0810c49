//! A capacity check for people, translated: the one home of the check's words that the app and
//! the CLI both show: a verdict in a word ([`verdict_word`], [`verdict_cell`]), a phase in a
//! word or a sentence ([`phase_word`], [`phase_sentence`]), the plan before writing, the verdict
//! in one line, the register findings, and the whole report as the CLI prints it.

use super::{
    CapacityReport, CapacityVerdict, Cost, Found, Mode, Phase, RegisterFinding, UnsureReason,
};
use crate::i18n::{fill, gettext, ngettext, number};
use crate::units::si_bytes;

/// A verdict in a word or two, for a mark or a list (the app's badge and history): "Genuine",
/// "Fake", "Loses data", "Partly checked", "Unsure".
pub fn verdict_word(verdict: CapacityVerdict) -> String {
    match verdict {
        CapacityVerdict::Genuine => gettext("Genuine"),
        CapacityVerdict::Fake => gettext("Fake"),
        CapacityVerdict::LosesData => gettext("Loses data"),
        CapacityVerdict::NotCheckedBeyond => gettext("Partly checked"),
        CapacityVerdict::Unsure => gettext("Unsure"),
    }
}

/// A verdict in a table cell of the CLI (`history capacity`, `history drives`), where the
/// verdicts that lose data are in capitals as FAIL is: "genuine", "FAKE", "LOSES DATA", "not
/// checked far enough", "unsure".
pub fn verdict_cell(verdict: CapacityVerdict) -> String {
    match verdict {
        CapacityVerdict::Genuine => gettext("genuine"),
        CapacityVerdict::Fake => gettext("FAKE"),
        CapacityVerdict::LosesData => gettext("LOSES DATA"),
        CapacityVerdict::NotCheckedBeyond => gettext("not checked far enough"),
        CapacityVerdict::Unsure => gettext("unsure"),
    }
}

/// A phase in a word, before a progress bar of the CLI: "Planning", "Saving", "Writing",
/// "Reading", "Restoring".
pub fn phase_word(phase: Phase) -> String {
    match phase {
        Phase::Planning => gettext("Planning"),
        Phase::Saving => gettext("Saving"),
        Phase::Writing => gettext("Writing"),
        Phase::Reading => gettext("Reading"),
        Phase::Restoring => gettext("Restoring"),
    }
}

/// What the check is doing in a plain sentence, above the app's progress bar: "Writing small
/// blocks all over the drive". Planning and saving read as one step of getting ready.
pub fn phase_sentence(phase: Phase) -> String {
    match phase {
        Phase::Planning | Phase::Saving => gettext("Getting ready: making the check file"),
        Phase::Writing => gettext("Writing small blocks all over the drive"),
        Phase::Reading => gettext("Reading them back"),
        Phase::Restoring => gettext("Putting back what was there"),
    }
}

/// The plan, said before anything is written: `Writing 3 328 spots (13.6 MB) …, about 20 s`.
pub fn plan_text(cost: &Cost, mode: Mode) -> String {
    let spots = fill(
        &ngettext(
            "{n} spot ({base} spread over the drive, the rest their aliases)",
            "{n} spots ({base} spread over the drive, the rest their aliases)",
            cost.spots,
        ),
        &[("n", &cost.spots), ("base", &cost.base_spots)],
    );
    let template = match mode {
        // Translators: {spots} is "N spots (…)"; {written} a size like "13.6 MB"; {seconds} a
        // number; {share} a percentage such as "90 %".
        Mode::Mounted => gettext(
            "Plan: {spots}, {written} written inside the program's own file, reaching {share} of \
             the drive; about {seconds} s.",
        ),
        Mode::Device => gettext(
            "Plan: {spots}; the original sectors are saved first and put back after: \
             {written} written in all, reaching {share} of the drive; about {seconds} s.",
        ),
    };
    fill(
        &template,
        &[
            ("spots", &spots),
            ("written", &si_bytes(cost.bytes_written)),
            ("share", &percent(cost.coverage)),
            ("seconds", &number(cost.estimated_seconds.ceil(), 0)),
        ],
    )
}

/// A share (0 to 1) as a whole percentage with the locale's digits: `90 %`.
fn percent(share: f64) -> String {
    format!("{} %", number(share * 100.0, 0))
}

/// The verdict in one line.
pub fn verdict_text(r: &CapacityReport) -> String {
    match r.verdict {
        CapacityVerdict::Genuine => fill(
            &gettext("Genuine: every spot held its data over the whole {claimed}."),
            &[("claimed", &si_bytes(r.claimed_bytes))],
        ),
        CapacityVerdict::Fake => fill(
            &gettext(
                "FAKE: the drive claims {claimed} but keeps about {real}; data written from byte \
                 {first} on overwrote earlier data.",
            ),
            &[
                ("claimed", &si_bytes(r.claimed_bytes)),
                ("real", &si_bytes(r.real_bytes.unwrap_or(r.verified_bytes))),
                ("first", &r.first_bad_address.unwrap_or(0)),
            ],
        ),
        CapacityVerdict::LosesData => fill(
            &gettext(
                "LOSES DATA: {bad} of {total} spots did not keep their data (the first at byte \
                 {first}); only the first {verified} held.",
            ),
            &[
                ("bad", &(r.spots.total - r.spots.intact - r.spots.unsure)),
                ("total", &r.spots.total),
                ("first", &r.first_bad_address.unwrap_or(0)),
                ("verified", &si_bytes(r.verified_bytes)),
            ],
        ),
        CapacityVerdict::NotCheckedBeyond => fill(
            &gettext(
                "Not checked beyond {share} ({bytes}): every spot checked held, but there was \
                 too little free space to reach further. Free some space, or check the \
                 unmounted card with --device.",
            ),
            &[
                ("share", &percent(r.coverage.share)),
                ("bytes", &si_bytes(r.coverage.bytes)),
            ],
        ),
        CapacityVerdict::Unsure => fill(
            &ngettext(
                "Unsure: {n} spot read differently each time or could not be read; check again, \
                 in another reader if you can.",
                "Unsure: {n} spots read differently each time or could not be read; check again, \
                 in another reader if you can.",
                r.spots.unsure,
            ),
            &[("n", &r.spots.unsure)],
        ),
    }
}

/// A register finding for people.
pub fn register_text(f: &RegisterFinding) -> String {
    match f {
        RegisterFinding::CsdSizeDiffers {
            csd_bytes,
            device_bytes,
        } => fill(
            &gettext("The card's CSD register says {csd}, but the system sees {device}."),
            &[
                ("csd", &si_bytes(*csd_bytes)),
                ("device", &si_bytes(*device_bytes)),
            ],
        ),
        RegisterFinding::PartitionsBeyondEnd {
            partitions_end_bytes,
            device_bytes,
        } => fill(
            &gettext("The partition table reaches {end}, beyond the drive's end at {device}."),
            &[
                ("end", &si_bytes(*partitions_end_bytes)),
                ("device", &si_bytes(*device_bytes)),
            ],
        ),
        RegisterFinding::UnknownMaker { mid } => fill(
            &gettext("The card's maker ID 0x{mid} belongs to no known maker."),
            &[("mid", &format!("{mid:02X}"))],
        ),
        RegisterFinding::ImplausibleOem { oid } => fill(
            &gettext("The card's OEM ID {oid} is not two letters, as genuine cards have."),
            &[("oid", oid)],
        ),
    }
}

fn found_text(f: Found) -> String {
    match f {
        Found::Intact => gettext("its own data"),
        Found::Wrapped { holds } => fill(
            &gettext("the data written at byte {holds}"),
            &[("holds", &holds)],
        ),
        Found::Zeros => gettext("zeros"),
        Found::Garbage => gettext("other data"),
        Found::Stale => gettext("an earlier check's data"),
    }
}

/// The first bad and unsure spots (up to 8 of each), one line each.
fn spot_lines(r: &CapacityReport) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = |s: String| out.push(s);
    for b in r.bad_spots.iter().take(8) {
        line(fill(
            &gettext("  byte {address}: read back {found}"),
            &[("address", &b.address), ("found", &found_text(b.found))],
        ));
    }
    for u in r.unsure.iter().take(8) {
        line(match u {
            UnsureReason::RetriesDisagreed { address } => fill(
                &gettext("  byte {address}: three reads disagreed"),
                &[("address", address)],
            ),
            UnsureReason::ReadError { address, message } => fill(
                &gettext("  byte {address}: read failed: {error}"),
                &[("address", address), ("error", message)],
            ),
        });
    }
    out
}

/// What the evidence did not reach: the wrap sizes left open when a check was not carried
/// far enough, and a last partial 4 KiB block, which no spot covers.
fn reach_lines(r: &CapacityReport) -> Vec<String> {
    let mut out = Vec::new();
    if r.verdict == CapacityVerdict::NotCheckedBeyond && r.wraps_checked_bytes < r.claimed_bytes {
        out.push(fill(
            &gettext(
                "A drive that wraps its addresses was ruled out only for real sizes up to \
                 {bytes}.",
            ),
            &[("bytes", &si_bytes(r.wraps_checked_bytes))],
        ));
    }
    let tail = r.claimed_bytes % super::pattern::BLOCK_U64;
    if tail > 0 {
        out.push(fill(
            &ngettext(
                "The last {n} byte, less than a 4 KiB block, was left as it was.",
                "The last {n} bytes, less than a 4 KiB block, were left as they were.",
                tail as u32,
            ),
            &[("n", &tail)],
        ));
    }
    out
}

/// The whole report as the CLI prints it.
pub fn to_text(r: &CapacityReport) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(verdict_text(r));
    line(fill(
        &gettext("Drive: {disk}, claims {claimed}{csd}"),
        &[
            (
                "disk",
                &r.drive
                    .model
                    .clone()
                    .unwrap_or_else(|| r.drive.disk.clone()),
            ),
            ("claimed", &si_bytes(r.claimed_bytes)),
            (
                "csd",
                &r.claims
                    .csd_bytes
                    .map(|c| fill(&gettext(" (CSD register: {csd})"), &[("csd", &si_bytes(c))]))
                    .unwrap_or_default(),
            ),
        ],
    ));
    line(fill(
        &gettext("Verified: {verified}; spots: {intact} of {total} held."),
        &[
            ("verified", &si_bytes(r.verified_bytes)),
            ("intact", &r.spots.intact),
            ("total", &r.spots.total),
        ],
    ));
    for l in spot_lines(r) {
        line(l);
    }
    for l in reach_lines(r) {
        line(l);
    }
    if !r.registers.is_empty() {
        let both = r.verdict.is_bad();
        line(if both {
            gettext("The card's registers are implausible too:")
        } else {
            gettext("The card's registers are implausible:")
        });
        for f in &r.registers {
            line(format!("  {}", register_text(f)));
        }
    }
    if let Some(restore) = &r.restore {
        if restore.failed == 0 {
            line(fill(
                &ngettext(
                    "Put back {n} saved sector and checked it.",
                    "Put back {n} saved sectors and checked them.",
                    restore.blocks,
                ),
                &[("n", &restore.blocks)],
            ));
        } else {
            line(not_put_back_text(restore));
        }
    }
    for rec in &r.recovered {
        line(recovered_text(rec));
    }
    line(fill(
        &gettext("Written {written}, read {read}, in {seconds} s."),
        &[
            ("written", &si_bytes(r.bytes_written)),
            ("read", &si_bytes(r.bytes_read)),
            ("seconds", &number(r.seconds, 1)),
        ],
    ));
    out
}

/// The addresses of `addresses`, for people: `0, 4096, …` in bytes.
fn addresses_text(addresses: &[u64], of: u32) -> String {
    let mut s: Vec<String> = addresses.iter().map(u64::to_string).collect();
    if (addresses.len() as u32) < of {
        s.push("…".into());
    }
    s.join(", ")
}

/// A restore that left some saved sectors: how many, where, and where they are kept.
fn not_put_back_text(restore: &super::Restore) -> String {
    let file = restore
        .kept_in
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    fill(
        &ngettext(
            "{n} of {total} saved sectors could not be put back (at byte {addresses}): the write \
             failed, or the card holds other data there than the check's own, which is not \
             overwritten. It is kept in {file}; the next check of this card puts it back where \
             it can, and `agnostics-cli capacity --forget-recovery` forgets it.",
            "{n} of {total} saved sectors could not be put back (at bytes {addresses}): the \
             writes failed, or the card holds other data there than the check's own, which is \
             not overwritten. They are kept in {file}; the next check of this card puts them \
             back where it can, and `agnostics-cli capacity --forget-recovery` forgets them.",
            restore.failed,
        ),
        &[
            ("n", &restore.failed),
            ("total", &restore.blocks),
            (
                "addresses",
                &addresses_text(&restore.failed_addresses, restore.failed),
            ),
            ("file", &file),
        ],
    )
}

/// An earlier, interrupted check's sectors put back.
pub fn recovered_text(r: &super::Recovered) -> String {
    let back = fill(
        &ngettext(
            "An earlier check of {disk} was interrupted: put back its {n} saved sector.",
            "An earlier check of {disk} was interrupted: put back its {n} saved sectors.",
            r.blocks,
        ),
        &[("disk", &r.disk), ("n", &r.blocks)],
    );
    if r.failed == 0 {
        return back;
    }
    let left = fill(
        &ngettext(
            "{n} could not be put back (at byte {addresses}) and stays in its recovery file.",
            "{n} could not be put back (at bytes {addresses}) and stay in its recovery file.",
            r.failed,
        ),
        &[
            ("n", &r.failed),
            ("addresses", &addresses_text(&r.failed_addresses, r.failed)),
        ],
    );
    format!("{back} {left}")
}
