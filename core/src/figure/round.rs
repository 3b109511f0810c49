//! How figures are rounded for people. A figure compared with a target is rounded **down**
//! ([`down`], [`whole`], [`down_text`]): 9.996 MB/s against a 10 MB/s target shows 9.99, and
//! 499.7 IOPS against 500 shows 499, so a shown figure never reaches a target it missed. A
//! figure no target is compared with (a link's ceiling, a live progress rate, a ratio) is
//! rounded to nearest ([`nearest_text`]). This module is where that choice is made.

/// The allowance added before rounding down, in units of the last place shown: 10⁻⁷ of it.
///
/// Decimal figures have no exact binary form: 0.29 MB/s is 28.999999999999996 hundredths, 2.3
/// is 22.999999999999996 tenths, and a bare floor would show them as 0.28 and 2.2. The
/// allowance lifts such values over the step they mathematically reach. A measurement within
/// 10⁻⁷ of a step below it counts as reaching that step (no measurement is that precise).
pub const ALLOWANCE: f64 = 1e-7;

/// `value` rounded down to `decimals` places (see [`ALLOWANCE`]): 9.996 → 9.99 at 2, 0.29 →
/// 0.29, 10.0 → 10.0. Negative values, NaN and infinities give 0.
pub fn down(value: f64, decimals: u32) -> f64 {
    let scale = 10f64.powi(decimals as i32);
    let scaled = value * scale + ALLOWANCE;
    if scaled.is_finite() && value > 0.0 {
        scaled.floor() / scale
    } else {
        0.0
    }
}

/// `value` rounded down to a whole number ([`down`] with no decimals): 9999.6 → 9999.
pub fn whole(value: f64) -> f64 {
    down(value, 0)
}

/// [`down`] written with exactly `decimals` places and the locale's decimal separator
/// ([`crate::i18n::number`]): 9.996 at 2 is `9.99`, 10.0 at 2 is `10.00` (`10,00` in German).
pub fn down_text(value: f64, decimals: u32) -> String {
    crate::i18n::number(down(value, decimals), decimals as usize)
}

/// `value` rounded to nearest with `decimals` places and the locale's decimal separator, for
/// figures no target is compared with: a link's ceiling (59.99 MB/s at 1 is `60.0`), a live
/// progress rate, a ratio.
pub fn nearest_text(value: f64, decimals: u32) -> String {
    crate::i18n::number(value, decimals as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_figure_never_reaches_a_missed_target() {
        assert_eq!(down_text(9.996, 2), "9.99");
        assert_eq!(down_text(9.999_999, 2), "9.99");
        assert_eq!(down_text(499.7, 0), "499");
        assert_eq!(down_text(9999.6, 0), "9999");
        assert_eq!(whole(412.7), 412.0);
    }

    #[test]
    fn exact_decimal_figures_stay_exact() {
        assert_eq!(down(0.29, 2), 0.29);
        assert_eq!(down_text(0.29, 2), "0.29");
        assert_eq!(down_text(2.3, 1), "2.3");
        assert_eq!(down_text(10.0, 2), "10.00");
        assert_eq!(down_text(12.0, 1), "12.0");
        assert_eq!(down_text(500.0, 0), "500");
        assert_eq!(down(1.005, 3), 1.005);
    }

    #[test]
    fn nothing_measured_is_zero() {
        assert_eq!(down(-1.0, 2), 0.0);
        assert_eq!(down(f64::NAN, 2), 0.0);
        assert_eq!(down(f64::INFINITY, 0), 0.0);
        assert_eq!(down_text(0.0, 1), "0.0");
    }

    #[test]
    fn descriptions_round_to_nearest() {
        assert_eq!(nearest_text(59.99, 1), "60.0");
        assert_eq!(nearest_text(612.6, 0), "613");
    }
}
