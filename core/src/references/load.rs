//! The shipped sources of published figures (`data/references/<source>.toml`), parsed once.
//!
//! File shape: a `[source]` table (`url`: the publication's address; `read_at`: where the
//! figures were read, when that is another address, e.g. the page's source; `title`;
//! `publisher`; `short`: the address's host as shown beside a figure; `date`: the year or
//! `YYYY-MM` of publication; `method`: `standard` or `qd1`; `method_wording`: the source's own
//! words for what was measured) and `[[rows]]` (`device`, `capacity`, `pi_model` — the model
//! as `/proc/device-tree/model` begins, e.g. `Raspberry Pi 4` —, optional `interface`, and
//! `figures`: `{ phase, value, unit }`, `phase` the fio job name of the profile the method
//! names and `unit` as [`crate::figure::Unit`] spells it in JSON).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::figure::Unit;

/// The shipped files: (file name, text).
const FILES: [(&str, &str); 2] = [
    (
        "raspberrypi-sd-cards.toml",
        include_str!("../../../data/references/raspberrypi-sd-cards.toml"),
    ),
    (
        "geerling-2019-pi4.toml",
        include_str!("../../../data/references/geerling-2019-pi4.toml"),
    ),
];

pub use crate::report::published::Method;

/// One published figure: the job it compares with, the value and its unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// The fio job name of the profile [`Source::method`] names, e.g. `rand-4k-read`.
    pub phase: String,
    /// The published value, in [`Figure::unit`].
    pub value: f64,
    /// `IOPS` or `MB/s` (10^6 bytes per second).
    pub unit: Unit,
}

/// One device a source measured, on one Raspberry Pi model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The device as the source names it, e.g. `Samsung Evo+`.
    pub device: String,
    /// Its capacity as the source writes it, e.g. `32GB`.
    pub capacity: String,
    /// The Raspberry Pi model, as `/proc/device-tree/model` begins: `Raspberry Pi 4`.
    pub pi_model: String,
    /// The bus mode the source names, e.g. `DDR50`, where it names one.
    #[serde(default)]
    pub interface: Option<String>,
    /// The published figures.
    pub figures: Vec<Figure>,
}

/// Where a set of rows was published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceInfo {
    /// The publication's address.
    pub url: String,
    /// Where the figures were read (the page's source, or the page itself).
    pub read_at: String,
    /// The publication's title.
    pub title: String,
    /// Who published it.
    pub publisher: String,
    /// The address's host as shown beside a figure, e.g. `raspberrypi.com`.
    pub short: String,
    /// The year (or `YYYY-MM`) of publication.
    pub date: String,
    /// How the figures were measured.
    pub method: Method,
    /// The source's own words for what was measured.
    pub method_wording: String,
}

/// One shipped file: its source and rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Where the rows were published.
    pub source: SourceInfo,
    /// The rows.
    pub rows: Vec<Row>,
}

/// Parses one file's text. Errors: the TOML error, with the file name.
pub fn parse(name: &str, text: &str) -> Result<Source, String> {
    toml::from_str(text).map_err(|e| format!("{name}: {e}"))
}

/// Every shipped source, in file order. The files are checked by the tests, so a file that
/// does not parse is a build mistake: it panics with the file's name.
pub fn sources() -> &'static [Source] {
    static SOURCES: OnceLock<Vec<Source>> = OnceLock::new();
    SOURCES.get_or_init(|| {
        FILES
            .iter()
            .map(|(name, text)| parse(name, text).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Builtin, Profile};

    /// The jobs of the profile a method stands beside.
    fn jobs(method: Method) -> Vec<String> {
        let profile = match method {
            Method::Standard => Profile::sd_bench(),
            Method::Qd1 => Builtin::find("qd1").unwrap().profile(),
        };
        profile.jobs.iter().map(|j| j.name.clone()).collect()
    }

    #[test]
    fn every_shipped_file_parses_and_every_row_has_a_source() {
        assert_eq!(sources().len(), FILES.len());
        for s in sources() {
            for address in [&s.source.url, &s.source.read_at] {
                assert!(address.starts_with("https://"), "{address}");
            }
            assert!(s.source.url.contains(&s.source.short), "{}", s.source.url);
            assert!(!s.source.method_wording.is_empty());
            assert!(!s.rows.is_empty());
            let jobs = jobs(s.source.method);
            for row in &s.rows {
                assert!(
                    row.pi_model.starts_with("Raspberry Pi "),
                    "{}",
                    row.pi_model
                );
                assert!(!row.figures.is_empty(), "{}", row.device);
                for f in &row.figures {
                    assert!(jobs.contains(&f.phase), "{} {}", row.device, f.phase);
                    let unit = match s.source.method {
                        Method::Standard => Unit::Iops,
                        Method::Qd1 => Unit::MbPerS,
                    };
                    assert_eq!(f.unit, unit, "{} {}", row.device, f.phase);
                    assert!(f.value > 0.0);
                }
            }
        }
    }

    #[test]
    fn the_published_figures_are_as_read() {
        let rpi = &sources()[0];
        assert_eq!(rpi.source.method, Method::Standard);
        let values: Vec<(String, f64)> = rpi
            .rows
            .iter()
            .flat_map(|r| r.figures.iter().map(|f| (r.pi_model.clone(), f.value)))
            .collect();
        assert_eq!(
            values,
            [
                ("Raspberry Pi 4".to_owned(), 3200.0),
                ("Raspberry Pi 4".to_owned(), 1200.0),
                ("Raspberry Pi 5".to_owned(), 5000.0),
                ("Raspberry Pi 5".to_owned(), 2000.0),
            ]
        );
        let geerling = &sources()[1];
        assert_eq!(geerling.rows.len(), 15);
        let evo = geerling
            .rows
            .iter()
            .find(|r| r.device == "Samsung Evo+")
            .unwrap();
        let v: Vec<f64> = evo.figures.iter().map(|f| f.value).collect();
        assert_eq!((evo.capacity.as_str(), v), ("32GB", vec![10.80, 3.85]));
    }

    #[test]
    fn an_unknown_unit_or_key_is_refused() {
        let good = FILES[0].1;
        assert!(parse("x", &good.replace("\"IOPS\"", "\"IOPs\"")).is_err());
        assert!(parse("x", &good.replace("capacity =", "size =")).is_err());
        assert!(parse(
            "x",
            &good.replace("method = \"standard\"", "method = \"qd32\"")
        )
        .is_err());
    }
}
