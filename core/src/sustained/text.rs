//! The sustained write test's result for people (translated): the cliff, the speeds either
//! side of it in MB/s, the worst write latency, the blocks read back, and the markings met and
//! claimed, with what the measurement is and is not. An SD card is "this card", any other
//! drive (a USB stick, an SSD, a virtual or loop disk) "this drive", as the report's
//! `sd_graded` tells them apart.

use crate::i18n::{fill, gettext, ngettext, number};
use crate::units::{human_bytes, mb_per_s};

use super::markings::{best_claimed, best_met};
use super::SustainedResult;

/// MB/s with one decimal, e.g. `12.3`.
fn mb(bytes_per_second: f64) -> String {
    number(mb_per_s(bytes_per_second), 1)
}

/// Milliseconds with one decimal, from µs.
fn ms(us: f64) -> String {
    number(us / 1000.0, 1)
}

/// The lines for `r`, each without a trailing newline; `sd`: the drive is an SD card (the
/// report's `sd_graded`).
pub fn lines(r: &SustainedResult, sd: bool) -> Vec<String> {
    let mut out = vec![speed_line(r)];
    out.push(fill(
        // xgettext:no-c-format
        &gettext("Slowest write: {max} ms (99 % of writes took at most {p99} ms)."),
        &[
            ("max", &ms(r.max_latency_us)),
            ("p99", &ms(r.p99_latency_us)),
        ],
    ));
    out.push(if r.corrupt_blocks == 0 {
        fill(
            &gettext("Read back and checked: {bytes}, every block as written."),
            &[("bytes", &human_bytes(r.verified_bytes))],
        )
    } else {
        corrupt_line(r.corrupt_blocks, sd)
    });
    out.extend(marking_lines(r, sd));
    out
}

/// `count` blocks read back wrong, and what to do.
fn corrupt_line(count: u64, sd: bool) -> String {
    let n = u32::try_from(count).unwrap_or(u32::MAX);
    let text = if sd {
        ngettext(
            "{count} block of 4 KiB read back wrong without any error: this card loses \
             data. Copy off what matters and replace the card.",
            "{count} blocks of 4 KiB read back wrong without any error: this card loses \
             data. Copy off what matters and replace the card.",
            n,
        )
    } else {
        ngettext(
            "{count} block of 4 KiB read back wrong without any error: this drive loses \
             data. Copy off what matters and replace the drive.",
            "{count} blocks of 4 KiB read back wrong without any error: this drive loses \
             data. Copy off what matters and replace the drive.",
            n,
        )
    };
    fill(&text, &[("count", &count)])
}

/// One sentence a novice reads first (translated): blocks that read back wrong, loudly, before
/// anything else; else the speed kept after the cliff (or over the whole run), what the card
/// claims and does not keep up with, and which video it is enough for (SD Association: V6 HD,
/// V10 Full HD, V30 4K, V60 and V90 8K). `sd`: the drive is an SD card ("This card …"),
/// else "This drive …".
pub fn headline(r: &SustainedResult, sd: bool) -> String {
    if r.corrupt_blocks > 0 {
        let n = u32::try_from(r.corrupt_blocks).unwrap_or(u32::MAX);
        let text = if sd {
            ngettext(
                "{count} block read back wrong: this card loses data.",
                "{count} blocks read back wrong: this card loses data.",
                n,
            )
        } else {
            ngettext(
                "{count} block read back wrong: this drive loses data.",
                "{count} blocks read back wrong: this drive loses data.",
                n,
            )
        };
        return fill(&text, &[("count", &r.corrupt_blocks)]);
    }
    let kept = kept(r, sd);
    let missed: Vec<&str> = best_claimed(&r.markings)
        .into_iter()
        .filter(|name| {
            r.markings
                .iter()
                .any(|m| m.name == *name && m.met == Some(false))
        })
        .collect();
    let claim = (!missed.is_empty()).then(|| {
        fill(
            &gettext("it claims {names} but does not keep up with it here"),
            &[("names", &missed.join(", "))],
        )
    });
    let video = video_use(&r.markings);
    match (claim, video) {
        (Some(claim), Some(video)) => fill(
            &gettext("{kept}: {video}; {claim}."),
            &[("kept", &kept), ("video", &video), ("claim", &claim)],
        ),
        (Some(claim), None) => fill(
            &gettext("{kept}; {claim}."),
            &[("kept", &kept), ("claim", &claim)],
        ),
        (None, Some(video)) => fill(
            &gettext("{kept}: {video}."),
            &[("kept", &kept), ("video", &video)],
        ),
        (None, None) => fill(&gettext("{kept}."), &[("kept", &kept)]),
    }
}

/// The speed kept: after the cliff, or over the whole run.
fn kept(r: &SustainedResult, sd: bool) -> String {
    match (r.cliff_bytes, r.after_bytes_per_second) {
        (Some(cliff), Some(after)) => fill(
            &if sd {
                gettext("This card slowed to {speed} MB/s after its first {cliff}")
            } else {
                gettext("This drive slowed to {speed} MB/s after its first {cliff}")
            },
            &[("speed", &mb(after)), ("cliff", &human_bytes(cliff))],
        ),
        _ => fill(
            &if sd {
                gettext("This card kept {speed} MB/s for all {bytes} written")
            } else {
                gettext("This drive kept {speed} MB/s for all {bytes} written")
            },
            &[
                ("speed", &mb(r.sustained_bytes_per_second)),
                ("bytes", &human_bytes(r.written_bytes)),
            ],
        ),
    }
}

/// What video recording the best Video Speed Class met is enough for, and the next it is not,
/// e.g. "enough for HD video, not for 4K"; `None` when no Video Speed Class could be judged.
fn video_use(markings: &[super::Marking]) -> Option<String> {
    let kind = |name: &str| match name {
        "V6" => Some(gettext("HD")),
        "V10" => Some(gettext("Full HD")),
        "V30" => Some(gettext("4K")),
        "V60" | "V90" => Some(gettext("8K")),
        _ => None,
    };
    let video: Vec<&super::Marking> = markings
        .iter()
        .filter(|m| m.family == super::markings::Family::Video)
        .collect();
    let best = video.iter().rfind(|m| m.met == Some(true));
    let next = video
        .iter()
        .find(|m| m.met == Some(false))
        .and_then(|m| kind(&m.name));
    match (best.and_then(|m| kind(&m.name)), next) {
        (Some(good), Some(bad)) => Some(fill(
            &gettext("enough for {good} video, not for {bad}"),
            &[("good", &good), ("bad", &bad)],
        )),
        (Some(good), None) => Some(fill(
            &gettext("enough for {good} video"),
            &[("good", &good)],
        )),
        (None, Some(_)) => Some(gettext("too slow for recording video")),
        (None, None) => None,
    }
}

/// Where the speed fell and the speeds either side, or the one speed.
fn speed_line(r: &SustainedResult) -> String {
    match (r.cliff_bytes, r.after_bytes_per_second) {
        (Some(cliff), Some(after)) => fill(
            &gettext(
                "The write speed fell after {cliff}: {before} MB/s before, {after} MB/s after.",
            ),
            &[
                ("cliff", &human_bytes(cliff)),
                ("before", &mb(r.before_bytes_per_second)),
                ("after", &mb(after)),
            ],
        ),
        _ => fill(
            &gettext("The write speed did not fall: {speed} MB/s over {bytes}."),
            &[
                ("speed", &mb(r.before_bytes_per_second)),
                ("bytes", &human_bytes(r.written_bytes)),
            ],
        ),
    }
}

/// The markings kept up with and claimed, those this computer cannot show, and what the
/// measurement is.
fn marking_lines(r: &SustainedResult, sd: bool) -> Vec<String> {
    let met = best_met(&r.markings);
    let mut out = vec![match (met.is_empty(), sd) {
        (true, true) => gettext("This card kept up with none of the speed markings."),
        (true, false) => gettext("This drive kept up with none of the speed markings."),
        (false, sd) => fill(
            &if sd {
                gettext("Speed markings this card kept up with: {met}.")
            } else {
                gettext("Speed markings this drive kept up with: {met}.")
            },
            &[("met", &met.join(", "))],
        ),
    }];
    if r.markings.iter().any(|m| m.claimed.is_some()) {
        let claimed = best_claimed(&r.markings);
        out.push(if claimed.is_empty() {
            gettext("The card claims no speed marking.")
        } else {
            fill(
                &gettext("Speed markings the card claims: {claimed}."),
                &[("claimed", &claimed.join(", "))],
            )
        });
    }
    let beyond: Vec<&str> = r
        .markings
        .iter()
        .filter(|m| m.met.is_none())
        .map(|m| m.name.as_str())
        .collect();
    if !beyond.is_empty() {
        out.push(fill(
            &gettext("Faster than this computer's link to the card, so not shown here: {names}."),
            &[("names", &beyond.join(", "))],
        ));
    }
    out.push(gettext(
        "Measured through the file system on this computer, not under the SD Association's \
         test conditions.",
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sustained::markings;

    fn result(cliff: Option<u64>, corrupt: u64) -> SustainedResult {
        SustainedResult {
            planned_bytes: 64 << 20,
            unit_bytes: 4 << 20,
            unit_from_card: false,
            written_bytes: 64 << 20,
            settled_early: false,
            cliff_bytes: cliff,
            before_bytes_per_second: 45_000_000.0,
            after_bytes_per_second: cliff.map(|_| 12_040_000.0),
            sustained_bytes_per_second: 12_040_000.0,
            max_latency_us: 412_300.0,
            p99_latency_us: 350_000.0,
            verified_bytes: (64 << 20) - corrupt * 4096,
            corrupt_blocks: corrupt,
            first_corrupt_bytes: None,
            link_bytes_per_second: Some(50e6),
            markings: markings::judge(12_040_000.0, Some(50e6), None),
            samples: vec![],
        }
    }

    #[test]
    fn the_lines_say_the_cliff_the_stall_and_the_markings() {
        let l = lines(&result(Some(32 << 20), 0), true);
        assert_eq!(
            l,
            [
                "The write speed fell after 32 MiB: 45.0 MB/s before, 12.0 MB/s after.",
                "Slowest write: 412.3 ms (99 % of writes took at most 350.0 ms).",
                "Read back and checked: 64 MiB, every block as written.",
                "Speed markings this card kept up with: C10, U1, V10.",
                "Faster than this computer's link to the card, so not shown here: V60, V90.",
                "Measured through the file system on this computer, not under the SD \
                 Association's test conditions.",
            ]
        );
        assert_eq!(
            headline(&result(Some(32 << 20), 0), true),
            "This card slowed to 12.0 MB/s after its first 32 MiB: enough for Full HD video, \
             not for 4K."
        );
        let mut claims = result(None, 0);
        claims.markings[8].claimed = Some(true);
        assert_eq!(
            headline(&claims, true),
            "This card kept 12.0 MB/s for all 64 MiB written: enough for Full HD video, not \
             for 4K; it claims V30 but does not keep up with it here."
        );
        assert_eq!(
            headline(&result(None, 3), true),
            "3 blocks read back wrong: this card loses data."
        );
        let l = lines(&result(None, 3), true);
        assert_eq!(l[0], "The write speed did not fall: 45.0 MB/s over 64 MiB.");
        assert!(
            l[2].starts_with("3 blocks of 4 KiB read back wrong"),
            "{}",
            l[2]
        );
    }

    #[test]
    fn a_drive_that_is_not_an_sd_card_is_this_drive_not_this_card() {
        let slowed = result(Some(32 << 20), 0);
        assert_eq!(
            headline(&slowed, false),
            "This drive slowed to 12.0 MB/s after its first 32 MiB: enough for Full HD video, \
             not for 4K."
        );
        assert_eq!(
            headline(&result(None, 0), false),
            "This drive kept 12.0 MB/s for all 64 MiB written: enough for Full HD video, not \
             for 4K."
        );
        assert_eq!(
            headline(&result(None, 1), false),
            "1 block read back wrong: this drive loses data."
        );
        let l = lines(&result(None, 3), false);
        assert_eq!(
            l[2],
            "3 blocks of 4 KiB read back wrong without any error: this drive loses data. Copy \
             off what matters and replace the drive."
        );
        assert_eq!(
            l[3],
            "Speed markings this drive kept up with: C10, U1, V10."
        );
        let mut none = result(None, 0);
        none.markings = markings::judge(1_000_000.0, None, None);
        assert_eq!(
            lines(&none, false)[3],
            "This drive kept up with none of the speed markings."
        );
        for l in [lines(&slowed, false), lines(&none, false)] {
            assert!(l.iter().all(|l| !l.contains("card kept")), "{l:?}");
        }
    }
}
