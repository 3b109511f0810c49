//! SD cards' own health reports: the 512-byte block a card answers to a read of CMD56
//! (`GEN_CMD`, SD Physical Layer Simplified Specification 4.3.12) with a maker's argument.
//! The SD specification leaves the block's contents to the maker; only the formats below,
//! as their makers documented them (and sdmon collected them), are read, each with its own
//! argument, and only from cards whose CID names that maker ([`formats_for`]). Any other
//! argument can hang a card until it is powered off.
//!
//! | Format    | Argument     | Signature (bytes 0–1) | Life                                     |
//! |-----------|--------------|-----------------------|------------------------------------------|
//! | SanDisk   | `0x00000001` | `44 53` or `44 57`    | byte 8: % used, 1 % steps (0x01: under 1 %) |
//! | Longsys   | `0x00000001` | `70 58`               | bytes 44–47 (LE): % life remaining       |
//! | ADATA     | `0x110005F1` | `09 41`               | byte 70: % life remaining                |
//! | Transcend | `0x110005F9` | `54 72`               | byte 70: % life remaining                |
//! | Swissbit  | `0x53420001` | `53 77`               | byte 80: % life remaining                |
//!
//! Other fields read: SanDisk's manufacturing date (bytes 2–7, ASCII `YYMMDD`) and power-on
//! count (bytes 24–26, BE); Longsys' grown bad blocks (bytes 20–23, LE); ADATA's grown bad
//! blocks (byte 26) and power cycles (bytes 76–79, BE); Transcend's new bad blocks (byte 26)
//! and power cycles (bytes 76–77, BE); Swissbit's user-area runtime bad blocks (bytes 96–99,
//! BE) and power cycles (bytes 116–119, BE).
//!
//! Real cards have answered all 0xFF, all 0x00, "199 % used" and "453 % remaining": an answer
//! is trusted only when its signature is the format's, its percentages are 0–100, its date is
//! digits, and a second read gives the same values ([`decode_twice`]).

use serde::{Deserialize, Serialize};

/// The size of a CMD56 answer, bytes.
pub const BLOCK: usize = 512;

/// A known CMD56 health report format. JSON: `sandisk`, `longsys`, `adata`, `transcend`,
/// `swissbit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cmd56Format {
    /// SanDisk and Western Digital industrial cards.
    Sandisk,
    /// Longsys (and the cards it makes for others, Raspberry Pi's among them).
    Longsys,
    /// ADATA industrial cards.
    Adata,
    /// Transcend industrial cards.
    Transcend,
    /// Swissbit cards.
    Swissbit,
}

impl Cmd56Format {
    /// The CMD56 argument that asks for this format's report (bit 0 set: a read).
    pub fn argument(self) -> u32 {
        match self {
            Cmd56Format::Sandisk | Cmd56Format::Longsys => 0x0000_0001,
            Cmd56Format::Adata => 0x1100_05F1,
            Cmd56Format::Transcend => 0x1100_05F9,
            Cmd56Format::Swissbit => 0x5342_0001,
        }
    }

    /// The first two bytes of an answer in this format.
    fn signature_ok(self, b: &[u8; BLOCK]) -> bool {
        match self {
            Cmd56Format::Sandisk => b[0] == 0x44 && (b[1] == 0x53 || b[1] == 0x57),
            Cmd56Format::Longsys => b[..2] == [0x70, 0x58],
            Cmd56Format::Adata => b[..2] == [0x09, 0x41],
            Cmd56Format::Transcend => b[..2] == [0x54, 0x72],
            Cmd56Format::Swissbit => b[..2] == [0x53, 0x77],
        }
    }
}

/// The format to ask a card with the SD manufacturer ID `mid` for, if any: SanDisk 0x03,
/// Longsys 0xAD, ADATA 0x1D, Transcend 0x1C, 0x1E and 0x74, Swissbit 0x5D. IDs shared with
/// makers whose cards take no such argument (0x1B, Samsung's, also seen on Transcend cards)
/// are left out.
pub fn format_for(mid: u8) -> Option<Cmd56Format> {
    match mid {
        0x03 => Some(Cmd56Format::Sandisk),
        0xAD => Some(Cmd56Format::Longsys),
        0x1D => Some(Cmd56Format::Adata),
        0x1C | 0x1E | 0x74 => Some(Cmd56Format::Transcend),
        0x5D => Some(Cmd56Format::Swissbit),
        _ => None,
    }
}

/// A trusted health report (JSON: the `sd_health.report` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cmd56Health {
    /// The format.
    pub format: Cmd56Format,
    /// The argument it was read with.
    pub argument: u32,
    /// How much of its rated life the card has used, percent (0–100): 100 − remaining, or
    /// SanDisk's used figure (the top of its 1 % step).
    pub life_used_percent: u8,
    /// Blocks that went bad in use, where the format has them.
    pub grown_bad_blocks: Option<u32>,
    /// Power cycles (SanDisk: power-ons), where the format has them.
    pub power_cycles: Option<u32>,
    /// SanDisk's manufacturing date, `YYMMDD`.
    pub made: Option<String>,
}

/// Why an answer is not trusted. JSON: `blank`, `signature`, `out_of_range`, `disagrees`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Untrusted {
    /// Every byte 0x00 or every byte 0xFF.
    Blank,
    /// Bytes 0–1 are not the format's signature.
    Signature,
    /// A field is outside its range: its name and value.
    OutOfRange {
        /// The field, e.g. `life_remaining_percent`.
        field: String,
        /// The value the card gave.
        value: u64,
    },
    /// Two reads gave different values.
    Disagrees,
}

fn be(b: &[u8]) -> u32 {
    b.iter().fold(0, |a, x| (a << 8) | u32::from(*x))
}

fn le(b: &[u8]) -> u32 {
    b.iter().rev().fold(0, |a, x| (a << 8) | u32::from(*x))
}

/// `value` as a percentage (0–100), or why not.
fn percent(field: &str, value: u32) -> Result<u8, Untrusted> {
    u8::try_from(value)
        .ok()
        .filter(|v| *v <= 100)
        .ok_or_else(|| Untrusted::OutOfRange {
            field: field.to_owned(),
            value: u64::from(value),
        })
}

/// Decodes one answer `b` in `format`. Pure.
pub fn decode(format: Cmd56Format, b: &[u8; BLOCK]) -> Result<Cmd56Health, Untrusted> {
    if b.iter().all(|x| *x == 0) || b.iter().all(|x| *x == 0xFF) {
        return Err(Untrusted::Blank);
    }
    if !format.signature_ok(b) {
        return Err(Untrusted::Signature);
    }
    let remaining = |field, v| percent(field, v).map(|p| 100 - p);
    let mut h = Cmd56Health {
        format,
        argument: format.argument(),
        life_used_percent: 0,
        grown_bad_blocks: None,
        power_cycles: None,
        made: None,
    };
    match format {
        Cmd56Format::Sandisk => {
            let made = &b[2..8];
            if !made.iter().all(u8::is_ascii_digit) {
                return Err(Untrusted::OutOfRange {
                    field: "made".to_owned(),
                    value: u64::from(be(&made[..4])),
                });
            }
            h.made = Some(String::from_utf8_lossy(made).into_owned());
            h.life_used_percent = percent("life_used_percent", u32::from(b[8]))?;
            h.power_cycles = Some(be(&b[24..27]));
        }
        Cmd56Format::Longsys => {
            h.life_used_percent = remaining("life_remaining_percent", le(&b[44..48]))?;
            h.grown_bad_blocks = Some(le(&b[20..24]));
        }
        Cmd56Format::Adata => {
            h.life_used_percent = remaining("life_remaining_percent", u32::from(b[70]))?;
            h.grown_bad_blocks = Some(u32::from(b[26]));
            h.power_cycles = Some(be(&b[76..80]));
        }
        Cmd56Format::Transcend => {
            h.life_used_percent = remaining("life_remaining_percent", u32::from(b[70]))?;
            h.grown_bad_blocks = Some(u32::from(b[26]));
            h.power_cycles = Some(be(&b[76..78]));
        }
        Cmd56Format::Swissbit => {
            h.life_used_percent = remaining("life_remaining_percent", u32::from(b[80]))?;
            h.grown_bad_blocks = Some(be(&b[96..100]));
            h.power_cycles = Some(be(&b[116..120]));
        }
    }
    Ok(h)
}

/// Decodes two answers to the same read: trusted only when both decode and agree.
pub fn decode_twice(
    format: Cmd56Format,
    first: &[u8; BLOCK],
    second: &[u8; BLOCK],
) -> Result<Cmd56Health, Untrusted> {
    let a = decode(format, first)?;
    let b = decode(format, second)?;
    if a == b {
        Ok(a)
    } else {
        Err(Untrusted::Disagrees)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer in `format`'s layout: signature, and `life` at its place (used % for
    /// SanDisk, remaining % for the others), 3 grown bad blocks, 1234 power cycles.
    fn answer(format: Cmd56Format, life: u32) -> [u8; BLOCK] {
        let mut b = [0u8; BLOCK];
        match format {
            Cmd56Format::Sandisk => {
                b[..2].copy_from_slice(&[0x44, 0x53]);
                b[2..8].copy_from_slice(b"211122");
                b[8] = life as u8;
                b[24..27].copy_from_slice(&[0x00, 0x04, 0xD2]);
                b[49..56].copy_from_slice(b"SanDisk");
            }
            Cmd56Format::Longsys => {
                b[..2].copy_from_slice(&[0x70, 0x58]);
                b[20..24].copy_from_slice(&3u32.to_le_bytes());
                b[44..48].copy_from_slice(&life.to_le_bytes());
            }
            Cmd56Format::Adata => {
                b[..2].copy_from_slice(&[0x09, 0x41]);
                b[26] = 3;
                b[70] = life as u8;
                b[76..80].copy_from_slice(&1234u32.to_be_bytes());
            }
            Cmd56Format::Transcend => {
                b[..2].copy_from_slice(&[0x54, 0x72]);
                b[26] = 3;
                b[70] = life as u8;
                b[76..78].copy_from_slice(&1234u16.to_be_bytes());
            }
            Cmd56Format::Swissbit => {
                b[..2].copy_from_slice(&[0x53, 0x77]);
                b[80] = life as u8;
                b[96..100].copy_from_slice(&3u32.to_be_bytes());
                b[116..120].copy_from_slice(&1234u32.to_be_bytes());
            }
        }
        b
    }

    #[test]
    fn each_format_decodes_its_published_fields() {
        let s = decode(Cmd56Format::Sandisk, &answer(Cmd56Format::Sandisk, 7)).unwrap();
        assert_eq!(s.life_used_percent, 7);
        assert_eq!(s.power_cycles, Some(1234));
        assert_eq!(s.made.as_deref(), Some("211122"));
        assert_eq!(s.argument, 1);
        for f in [
            Cmd56Format::Longsys,
            Cmd56Format::Adata,
            Cmd56Format::Transcend,
            Cmd56Format::Swissbit,
        ] {
            let h = decode(f, &answer(f, 88)).unwrap();
            assert_eq!(h.life_used_percent, 12, "{f:?}");
            assert_eq!(h.grown_bad_blocks, Some(3), "{f:?}");
            assert_eq!(h.argument, f.argument());
        }
        assert_eq!(
            decode(Cmd56Format::Swissbit, &answer(Cmd56Format::Swissbit, 88))
                .unwrap()
                .power_cycles,
            Some(1234)
        );
        // Western Digital's signature is SanDisk's format too.
        let mut wd = answer(Cmd56Format::Sandisk, 1);
        wd[1] = 0x57;
        assert_eq!(
            decode(Cmd56Format::Sandisk, &wd).unwrap().life_used_percent,
            1
        );
    }

    #[test]
    fn garbage_answers_real_cards_gave_are_not_trusted() {
        for f in [Cmd56Format::Sandisk, Cmd56Format::Longsys] {
            assert_eq!(decode(f, &[0xFF; BLOCK]), Err(Untrusted::Blank));
            assert_eq!(decode(f, &[0x00; BLOCK]), Err(Untrusted::Blank));
        }
        assert_eq!(
            decode(Cmd56Format::Sandisk, &answer(Cmd56Format::Sandisk, 199)),
            Err(Untrusted::OutOfRange {
                field: "life_used_percent".into(),
                value: 199
            })
        );
        assert_eq!(
            decode(Cmd56Format::Longsys, &answer(Cmd56Format::Longsys, 453)),
            Err(Untrusted::OutOfRange {
                field: "life_remaining_percent".into(),
                value: 453
            })
        );
        // Another maker's answer, or a SanDisk date that is not digits.
        assert_eq!(
            decode(Cmd56Format::Longsys, &answer(Cmd56Format::Sandisk, 5)),
            Err(Untrusted::Signature)
        );
        let mut bad_date = answer(Cmd56Format::Sandisk, 5);
        bad_date[4] = 0xFF;
        assert!(matches!(
            decode(Cmd56Format::Sandisk, &bad_date),
            Err(Untrusted::OutOfRange { .. })
        ));
    }

    #[test]
    fn two_reads_must_agree() {
        let f = Cmd56Format::Transcend;
        let a = answer(f, 90);
        assert_eq!(decode_twice(f, &a, &a).unwrap().life_used_percent, 10);
        assert_eq!(
            decode_twice(f, &a, &answer(f, 40)),
            Err(Untrusted::Disagrees)
        );
        assert_eq!(decode_twice(f, &a, &[0xFF; BLOCK]), Err(Untrusted::Blank));
    }

    #[test]
    fn only_allow_listed_makers_are_asked() {
        assert_eq!(format_for(0x03), Some(Cmd56Format::Sandisk));
        assert_eq!(format_for(0xAD), Some(Cmd56Format::Longsys));
        assert_eq!(format_for(0x1D), Some(Cmd56Format::Adata));
        assert_eq!(format_for(0x74), Some(Cmd56Format::Transcend));
        assert_eq!(format_for(0x5D), Some(Cmd56Format::Swissbit));
        for other in [0x00, 0x02, 0x1B, 0x27, 0x9F, 0xFF] {
            assert_eq!(format_for(other), None, "{other:#x}");
        }
        // Every argument asks for a read (bit 0 set), never a write.
        for f in [
            Cmd56Format::Sandisk,
            Cmd56Format::Longsys,
            Cmd56Format::Adata,
            Cmd56Format::Transcend,
            Cmd56Format::Swissbit,
        ] {
            assert_eq!(f.argument() & 1, 1);
        }
    }
}
