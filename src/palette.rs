//! The app's own colours, one typed palette per style (light and dark), and WCAG 2.x contrast
//! ratios: the charts draw with [`ChartPalette`]; the badges' and notes' text colours of
//! `style.css` / `style-dark.css` are listed in [`TextPalette`] with the backgrounds they sit
//! on, so that a test can hold every pair to its minimum (4.5:1 for text, 3:1 for the lines and
//! bars one needs to read a chart).
//!
//! The backgrounds are libadwaita 1.2's: `@window_bg_color` (#fafafa light, #242424 dark) under
//! the notes, `@card_bg_color` (#ffffff light, 8 % white over the window dark) under the
//! charts and the badges.

use gtk::gdk;

/// An opaque sRGB colour, 8 bits a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// WCAG 2.x relative luminance, 0 (black) to 1 (white).
    pub fn luminance(self) -> f64 {
        let linear = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(self.0) + 0.7152 * linear(self.1) + 0.0722 * linear(self.2)
    }

    /// WCAG 2.x contrast ratio with `other`, 1 to 21, either order.
    pub fn contrast(self, other: Rgb) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// This colour at opacity `alpha` (0 to 1) over `under`, as it shows.
    pub fn over(self, alpha: f64, under: Rgb) -> Rgb {
        let mix = |top: u8, bottom: u8| {
            (f64::from(top) * alpha + f64::from(bottom) * (1.0 - alpha)).round() as u8
        };
        Rgb(
            mix(self.0, under.0),
            mix(self.1, under.1),
            mix(self.2, under.2),
        )
    }

    /// The colour as GDK's, opaque.
    pub fn rgba(self) -> gdk::RGBA {
        gdk::RGBA::new(
            f32::from(self.0) / 255.0,
            f32::from(self.1) / 255.0,
            f32::from(self.2) / 255.0,
            1.0,
        )
    }

    /// `#rrggbb`, as in the style sheets.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// libadwaita 1.2's window backgrounds.
const LIGHT_WINDOW: Rgb = Rgb(0xfa, 0xfa, 0xfa);
const DARK_WINDOW: Rgb = Rgb(0x24, 0x24, 0x24);
/// libadwaita 1.2's card backgrounds (8 % white over the window, dark).
const LIGHT_CARD: Rgb = Rgb(0xff, 0xff, 0xff);
const DARK_CARD: Rgb = Rgb(0x36, 0x36, 0x36);

/// The colours of the live chart and the trend charts in one style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartPalette {
    /// The window's background, around the charts' cards.
    pub background: Rgb,
    /// What the charts are drawn on: a card's background (the lines, the bars and the text
    /// clear both).
    pub card: Rgb,
    /// Tick labels, axis names, legend and the reference lines' "A1".
    pub text: Rgb,
    /// The live chart's per-second bars (libadwaita's accent colour).
    pub bar: Rgb,
    /// The reference line (dashed A1 target, or a phase's average) across the bars.
    pub reference: Rgb,
    /// The band drawn under the reference line, wider than it, so that where the line crosses
    /// a bar it stands on this colour, not on the bar's (the card's, so that it shows only
    /// across the bars).
    pub halo: Rgb,
    /// The trend charts' series, in order (libadwaita's palette: blue, orange, green, purple,
    /// red, in shades that stand out on this style's background).
    pub lines: [Rgb; 5],
}

impl ChartPalette {
    /// The light style.
    pub const LIGHT: ChartPalette = ChartPalette {
        background: LIGHT_WINDOW,
        card: LIGHT_CARD,
        text: Rgb(0x32, 0x32, 0x32),
        bar: Rgb(0x1c, 0x71, 0xd8),
        reference: Rgb(0x1e, 0x1e, 0x1e),
        halo: LIGHT_CARD,
        lines: [
            Rgb(0x35, 0x84, 0xe4), // blue_3
            Rgb(0xe6, 0x61, 0x00), // orange_3
            Rgb(0x26, 0xa2, 0x69), // green_5
            Rgb(0x91, 0x41, 0xac), // purple_3
            Rgb(0xe0, 0x1b, 0x24), // red_3
        ],
    };

    /// The dark style.
    pub const DARK: ChartPalette = ChartPalette {
        background: DARK_WINDOW,
        card: DARK_CARD,
        text: Rgb(0xff, 0xff, 0xff),
        bar: Rgb(0x78, 0xae, 0xed),
        reference: Rgb(0xff, 0xff, 0xff),
        halo: DARK_CARD,
        lines: [
            Rgb(0x62, 0xa0, 0xea), // blue_2
            Rgb(0xff, 0xa3, 0x48), // orange_2
            Rgb(0x33, 0xd1, 0x7a), // green_3
            Rgb(0xdc, 0x8a, 0xdd), // purple_1
            Rgb(0xf6, 0x61, 0x51), // red_1
        ],
    };

    /// The palette of the style libadwaita shows now (light or dark, as
    /// `adw::StyleManager` says).
    pub fn current() -> &'static ChartPalette {
        if adw::StyleManager::default().is_dark() {
            &ChartPalette::DARK
        } else {
            &ChartPalette::LIGHT
        }
    }

    /// Every pair of colours that must stand apart, each with what it is and its minimum
    /// ratio: (what, colour, against, minimum).
    pub fn pairs(&self) -> Vec<(String, Rgb, Rgb, f64)> {
        let mut pairs = vec![
            ("text on background".into(), self.text, self.background, 4.5),
            ("bar on background".into(), self.bar, self.background, 3.0),
            (
                "reference line on background".into(),
                self.reference,
                self.background,
                3.0,
            ),
            (
                "reference line on its halo".into(),
                self.reference,
                self.halo,
                3.0,
            ),
            ("halo on bar".into(), self.halo, self.bar, 3.0),
        ];
        for (i, line) in self.lines.iter().enumerate() {
            pairs.push((
                format!("trend line {i} on background"),
                *line,
                self.background,
                3.0,
            ));
            pairs.push((format!("trend line {i} on a card"), *line, self.card, 3.0));
        }
        pairs.push(("text on a card".into(), self.text, self.card, 4.5));
        pairs.push(("bar on a card".into(), self.bar, self.card, 3.0));
        pairs.push((
            "reference line on a card".into(),
            self.reference,
            self.card,
            3.0,
        ));
        pairs
    }
}

/// A text colour of the style sheets and what it is drawn on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextOn {
    /// The CSS selector that sets the colour.
    pub selector: &'static str,
    /// The text's colour (in the style sheet).
    pub text: Rgb,
    /// Its background as it shows (a badge's 14 % tint over a card, or the window).
    pub background: Rgb,
}

/// The text colours of one style's sheet, with their backgrounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextPalette {
    /// The badges (PASS, FAIL, warning, NOT GRADED) and the "for reference only" note.
    pub texts: [TextOn; 5],
}

/// `top` at 14 % over `bottom`, rounded (`Rgb::over`, in integers for a constant).
const fn mix(top: u8, bottom: u8) -> u8 {
    ((top as u32 * 14 + bottom as u32 * 86 + 50) / 100) as u8
}

/// A badge's background: its status colour at 14 % over a card.
const fn tint(status: Rgb, card: Rgb) -> Rgb {
    Rgb(
        mix(status.0, card.0),
        mix(status.1, card.1),
        mix(status.2, card.2),
    )
}

impl TextPalette {
    /// `style.css`.
    pub const LIGHT: TextPalette = TextPalette {
        texts: [
            TextOn {
                selector: "badge.success",
                text: Rgb(0x0e, 0x6b, 0x3d),
                background: tint(Rgb(0x1b, 0x85, 0x53), LIGHT_CARD),
            },
            TextOn {
                selector: "badge.error",
                text: Rgb(0xa5, 0x1d, 0x2d),
                background: tint(Rgb(0xc0, 0x1c, 0x28), LIGHT_CARD),
            },
            TextOn {
                selector: "badge.warning",
                text: Rgb(0x7a, 0x54, 0x00),
                background: tint(Rgb(0x9c, 0x6e, 0x03), LIGHT_CARD),
            },
            TextOn {
                selector: "badge.accent",
                text: Rgb(0x1a, 0x5f, 0xb4),
                background: tint(Rgb(0x1c, 0x71, 0xd8), LIGHT_CARD),
            },
            TextOn {
                selector: "label.reference-note",
                text: Rgb(0x7a, 0x54, 0x00),
                background: LIGHT_WINDOW,
            },
        ],
    };

    /// `style-dark.css`.
    pub const DARK: TextPalette = TextPalette {
        texts: [
            TextOn {
                selector: "badge.success",
                text: Rgb(0x8f, 0xf0, 0xa4),
                background: tint(Rgb(0x8f, 0xf0, 0xa4), DARK_CARD),
            },
            TextOn {
                selector: "badge.error",
                text: Rgb(0xff, 0xa0, 0x95),
                background: tint(Rgb(0xff, 0x7b, 0x63), DARK_CARD),
            },
            TextOn {
                selector: "badge.warning",
                text: Rgb(0xf8, 0xe4, 0x5c),
                background: tint(Rgb(0xf8, 0xe4, 0x5c), DARK_CARD),
            },
            TextOn {
                selector: "badge.accent",
                text: Rgb(0x99, 0xc1, 0xf1),
                background: tint(Rgb(0x78, 0xae, 0xed), DARK_CARD),
            },
            TextOn {
                selector: "label.reference-note",
                text: Rgb(0xf8, 0xe4, 0x5c),
                background: DARK_WINDOW,
            },
        ],
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luminance_and_contrast_follow_wcag() {
        assert_eq!(Rgb(0, 0, 0).luminance(), 0.0);
        assert!((Rgb(255, 255, 255).luminance() - 1.0).abs() < 1e-12);
        assert!((Rgb(0, 0, 0).contrast(Rgb(255, 255, 255)) - 21.0).abs() < 1e-9);
        // WCAG's own example: #767676 on white is 4.54:1.
        let grey = Rgb(0x76, 0x76, 0x76).contrast(Rgb(255, 255, 255));
        assert!((grey - 4.54).abs() < 0.01, "{grey}");
        assert_eq!(
            Rgb(0, 0, 0).over(0.8, Rgb(0xfa, 0xfa, 0xfa)),
            Rgb(50, 50, 50)
        );
    }

    /// Every chart pair clears its minimum, in both styles: the text 4.5:1, the bars, the
    /// reference line (against the background, and its halo against the bars it crosses) and
    /// every trend line 3:1.
    #[test]
    fn chart_colours_stand_apart_in_both_styles() {
        let mut low = Vec::new();
        for (style, palette) in [("light", ChartPalette::LIGHT), ("dark", ChartPalette::DARK)] {
            for (what, a, b, minimum) in palette.pairs() {
                let ratio = a.contrast(b);
                println!("{style}: {what}: {ratio:.2}:1");
                if ratio < minimum {
                    low.push(format!("{style}: {what} {ratio:.2}:1 < {minimum}:1"));
                }
            }
        }
        assert!(low.is_empty(), "{low:#?}");
    }

    /// The badges' and notes' text on their backgrounds, 4.5:1 in both styles, and each
    /// colour is the one its style sheet sets for its selector.
    #[test]
    fn text_colours_read_in_both_styles_and_are_the_style_sheets() {
        let sheets = [
            ("light", TextPalette::LIGHT, include_str!("style.css")),
            ("dark", TextPalette::DARK, include_str!("style-dark.css")),
        ];
        for (style, palette, css) in sheets {
            for t in palette.texts {
                let ratio = t.text.contrast(t.background);
                println!("{style}: {}: {ratio:.2}:1", t.selector);
                assert!(ratio >= 4.5, "{style}: {} is {ratio:.2}:1", t.selector);
                let rule = css
                    .split(&format!("\n{} {{", t.selector))
                    .nth(1)
                    .and_then(|rest| rest.split('}').next())
                    .unwrap_or_else(|| panic!("{style}: no rule for {}", t.selector));
                assert!(
                    rule.contains(&format!("color: {};", t.text.hex())),
                    "{style}: {} does not set {}",
                    t.selector,
                    t.text.hex()
                );
            }
        }
    }

    /// The colours the live chart drew before: its reference line in the text colour at 75 %
    /// straight over the bars, 2.9:1 (light) and 1.9:1 (dark); and the trend chart's light
    /// green (libadwaita's green_4, #2ec27e) at 2.2:1. Each is under 3:1; the palette's
    /// halo and shades clear it.
    #[test]
    fn the_colours_drawn_before_were_below_the_minimum() {
        let light_line = Rgb(0, 0, 0).over(0.8 * 0.75, Rgb(0x1c, 0x71, 0xd8));
        let light = light_line.contrast(Rgb(0x1c, 0x71, 0xd8));
        let dark_line = Rgb(255, 255, 255).over(0.75, Rgb(0x78, 0xae, 0xed));
        let dark = dark_line.contrast(Rgb(0x78, 0xae, 0xed));
        let green = Rgb(0x2e, 0xc2, 0x7e).contrast(LIGHT_WINDOW);
        println!("before: line over bar {light:.2}:1 light, {dark:.2}:1 dark; green {green:.2}:1");
        assert!(light < 3.0 && dark < 3.0 && green < 3.0);
    }
}
