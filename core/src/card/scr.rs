//! The SD Configuration Register (SD Physical Layer Simplified Specification, "SCR
//! register"), 64 bits: SCR_STRUCTURE `[63:60]`, SD_SPEC `[59:56]`, DATA_STAT_AFTER_ERASE `[55]`,
//! SD_SECURITY `[54:52]`, SD_BUS_WIDTHS `[51:48]`, SD_SPEC3 `[47]`, EX_SECURITY `[46:43]`, SD_SPEC4
//! `[42]`, SD_SPECX `[41:38]`, CMD_SUPPORT `[35:32]`.

use serde::{Deserialize, Serialize};

use super::regs::Bits;

/// A decoded SCR.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scr {
    /// The physical layer specification version the card follows: `1.0x`, `1.10`, `2.00`,
    /// `3.0x`, `4.xx`, `5.xx` … `9.xx`, or `unknown (…)` for combinations the specification
    /// does not define.
    pub version: String,
    /// SCR_STRUCTURE (0 = SCR version 1.0; others reserved).
    pub structure: u8,
    /// SD_SPEC.
    pub sd_spec: u8,
    /// SD_SPEC3: version 3.00 or later.
    pub sd_spec3: bool,
    /// SD_SPEC4: version 4.00 or later.
    pub sd_spec4: bool,
    /// SD_SPECX: 1…5 for versions 5.xx…9.xx.
    pub sd_specx: u8,
    /// DATA_STAT_AFTER_ERASE: what erased blocks read as (0 or 1).
    pub data_stat_after_erase: u8,
    /// SD_SECURITY: 0 none, 2 SDSC security, 3 SDHC, 4 SDXC.
    pub sd_security: u8,
    /// Supported bus widths in bits, from SD_BUS_WIDTHS (bit 0 → 1-bit, bit 2 → 4-bit).
    pub bus_widths: Vec<u8>,
    /// EX_SECURITY, raw.
    pub ex_security: u8,
    /// CMD_SUPPORT, raw (bit 0 CMD20, bit 1 CMD23, bit 2 CMD48/49, bit 3 CMD58/59).
    pub cmd_support: u8,
    /// The commands CMD_SUPPORT says the card supports, e.g. `["CMD20", "CMD23"]`.
    pub commands: Vec<String>,
}

/// The version string for SD_SPEC, SD_SPEC3, SD_SPEC4 and SD_SPECX.
pub fn spec_version(sd_spec: u8, spec3: bool, spec4: bool, specx: u8) -> String {
    match (sd_spec, spec3, spec4, specx) {
        (0, false, false, 0) => "1.0x".into(),
        (1, false, false, 0) => "1.10".into(),
        (2, false, false, 0) => "2.00".into(),
        (2, true, false, 0) => "3.0x".into(),
        (2, true, true, 0) => "4.xx".into(),
        (2, true, _, x @ 1..=5) => format!("{}.xx", x + 4),
        _ => format!(
            "unknown (SD_SPEC {sd_spec}, SPEC3 {}, SPEC4 {}, SPECX {specx})",
            u8::from(spec3),
            u8::from(spec4)
        ),
    }
}

/// Decodes an 8-byte SCR. Never panics.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode(reg: &[u8; 8]) -> Scr {
    let b = Bits(reg);
    let sd_spec = b.field(59, 56) as u8;
    let sd_spec3 = b.bit(47) == 1;
    let sd_spec4 = b.bit(42) == 1;
    let sd_specx = b.field(41, 38) as u8;
    let widths = b.field(51, 48) as u8;
    let cmd_support = b.field(35, 32) as u8;
    let mut bus_widths = Vec::new();
    if widths & 1 != 0 {
        bus_widths.push(1);
    }
    if widths & 4 != 0 {
        bus_widths.push(4);
    }
    let commands = [(1, "CMD20"), (2, "CMD23"), (4, "CMD48/49"), (8, "CMD58/59")]
        .iter()
        .filter(|(bit, _)| cmd_support & bit != 0)
        .map(|(_, c)| (*c).to_owned())
        .collect();
    Scr {
        version: spec_version(sd_spec, sd_spec3, sd_spec4, sd_specx),
        structure: b.field(63, 60) as u8,
        sd_spec,
        sd_spec3,
        sd_spec4,
        sd_specx,
        data_stat_after_erase: b.bit(55) as u8,
        sd_security: b.field(54, 52) as u8,
        bus_widths,
        ex_security: b.field(46, 43) as u8,
        cmd_support,
        commands,
    }
}

#[cfg(test)]
mod tests {
    use super::super::regs::parse_hex;
    use super::*;
    use proptest::prelude::*;

    fn scr(text: &str) -> Scr {
        let v = parse_hex(text, 8).unwrap();
        let mut a = [0u8; 8];
        a.copy_from_slice(&v);
        decode(&a)
    }

    #[test]
    fn decodes_a_version_6_card() {
        let s = scr("0205848701006432");
        assert_eq!(s.version, "6.xx");
        assert_eq!(
            (s.sd_spec, s.sd_spec3, s.sd_spec4, s.sd_specx),
            (2, true, true, 2)
        );
        assert_eq!(s.bus_widths, [1, 4]);
        assert_eq!(s.cmd_support, 7);
        assert_eq!(s.commands, ["CMD20", "CMD23", "CMD48/49"]);
    }

    #[test]
    fn version_rule() {
        assert_eq!(scr("0225000000000000").version, "2.00");
        assert_eq!(scr("0235800100000000").version, "3.0x");
        assert_eq!(scr("0245848700000000").version, "6.xx");
        assert_eq!(spec_version(0, false, false, 0), "1.0x");
        assert_eq!(spec_version(1, false, false, 0), "1.10");
        assert_eq!(spec_version(2, true, false, 1), "5.xx");
        assert_eq!(spec_version(2, true, true, 5), "9.xx");
        assert!(spec_version(3, false, false, 0).starts_with("unknown"));
        assert!(spec_version(2, false, false, 3).starts_with("unknown"));
    }

    proptest! {
        #[test]
        fn any_scr_decodes(bytes in proptest::array::uniform8(any::<u8>())) {
            let s = decode(&bytes);
            prop_assert!(!s.version.is_empty());
        }
    }
}
