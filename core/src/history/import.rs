//! Reading an import file once, in bounded memory: one document (a JSON object) or an array of
//! them, each handed on as soon as it is read, and none larger than [`MAX_DOCUMENT_BYTES`],
//! with no string longer than [`MAX_STRING_BYTES`] and no array longer than
//! [`MAX_ARRAY_ITEMS`]. A file of any length takes the memory of its largest document, not of
//! the whole file; a document with a 100 MB model name is refused naming the field.

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use serde::de::{self, Deserialize, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::error::HistoryError;

/// The largest document read: 8 MiB of JSON (a standard run's document is about 10 KiB; one
/// with a sample a second for a day, about 5 MiB).
pub const MAX_DOCUMENT_BYTES: u64 = 8 << 20;

/// The longest string in a document: 16 KiB (fio's whole error text fits; a model name or a
/// warning never comes near).
pub const MAX_STRING_BYTES: usize = 16 << 10;

/// The longest array in a document: 100 000 items (a phase's samples, one a second, for a
/// day and more).
pub const MAX_ARRAY_ITEMS: usize = 100_000;

/// Reads `file` and calls `each(index, document, in_array)` for each document in order (a
/// lone object is document 0, not in an array). Stops at the first error, `each`'s own or the
/// file's: [`HistoryError::Io`] when it cannot be read, [`HistoryError::Malformed`] for an
/// empty file, JSON that does not parse, a document over a bound (naming the field), and
/// [`HistoryError::Foreign`] for JSON that is neither an object nor an array. A UTF-8
/// byte-order mark before the JSON is skipped.
pub(super) fn for_each_document(
    file: &Path,
    each: &mut dyn FnMut(usize, Value, bool) -> Result<(), HistoryError>,
) -> Result<(), HistoryError> {
    let malformed = |reason: String| HistoryError::Malformed {
        file: file.to_path_buf(),
        reason,
    };
    let io = |e: std::io::Error| HistoryError::Io {
        path: file.to_path_buf(),
        source: e,
    };
    let mut reader = BufReader::new(std::fs::File::open(file).map_err(io)?);
    // A UTF-8 byte-order mark (Windows editors write one) is not part of the JSON, and a file
    // of nothing but white space is a run that was cut short.
    let mut first = true;
    loop {
        let buf = reader.fill_buf().map_err(io)?;
        if buf.is_empty() {
            return Err(malformed(
                "the file is empty (a run that was cut short?)".to_owned(),
            ));
        }
        if first && buf.starts_with(b"\xef\xbb\xbf") {
            reader.consume(3);
            first = false;
            continue;
        }
        first = false;
        let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blank < buf.len() {
            reader.consume(blank);
            break;
        }
        reader.consume(blank);
    }
    let read = Rc::new(Cell::new(0u64));
    let mark = Rc::new(Cell::new(0u64));
    let limited = Limited {
        inner: reader,
        read: Rc::clone(&read),
        mark: Rc::clone(&mark),
    };
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_reader(limited);
    let top = Top {
        each,
        read,
        mark,
        failed: &mut failed,
    };
    let parsed = top.deserialize(&mut de).and_then(|()| de.end());
    if let Some(e) = failed {
        return Err(e);
    }
    parsed.map_err(|e| match e.io_error_kind() {
        Some(_) => malformed(e.to_string()),
        None => malformed(format!("not JSON ({e})")),
    })
}

/// The reader under the JSON parser: counts the bytes read and fails once a document (from
/// `mark`) is over [`MAX_DOCUMENT_BYTES`].
struct Limited<R> {
    inner: R,
    read: Rc<Cell<u64>>,
    mark: Rc<Cell<u64>>,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        if self.read.get() - self.mark.get() > MAX_DOCUMENT_BYTES {
            return Err(std::io::Error::other(format!(
                "a document is larger than {} MiB (the largest an import reads)",
                MAX_DOCUMENT_BYTES >> 20
            )));
        }
        Ok(n)
    }
}

/// The file's top level: an object (one document) or an array of documents.
struct Top<'a> {
    each: &'a mut dyn FnMut(usize, Value, bool) -> Result<(), HistoryError>,
    read: Rc<Cell<u64>>,
    mark: Rc<Cell<u64>>,
    failed: &'a mut Option<HistoryError>,
}

impl Top<'_> {
    /// Hands `doc` on, or keeps `each`'s error and stops the parser.
    fn hand_on<E: de::Error>(&mut self, index: usize, doc: Value, array: bool) -> Result<(), E> {
        match (self.each)(index, doc, array) {
            Ok(()) => Ok(()),
            Err(e) => {
                *self.failed = Some(e);
                Err(E::custom("stopped"))
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an Agnostics report or an array of them")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, map: A) -> Result<(), A::Error> {
        let doc = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        self.hand_on(0, doc, false)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        loop {
            self.mark.set(self.read.get());
            let Some(doc) = seq.next_element::<Value>()? else {
                return Ok(());
            };
            self.hand_on(index, doc, true)?;
            index += 1;
        }
    }

    // Anything else is JSON that is not a report.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.not_a_report()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.not_a_report()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.not_a_report()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.not_a_report()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.not_a_report()
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.not_a_report()
    }
}

impl Top<'_> {
    /// A top level that is neither an object nor an array: handed on as document 0, which
    /// `each` finds is not an Agnostics report.
    fn not_a_report<E: de::Error>(mut self) -> Result<(), E> {
        self.hand_on(0, Value::Null, false)
    }
}

/// `Ok` when every string in `doc` is at most [`MAX_STRING_BYTES`] long and every array at
/// most [`MAX_ARRAY_ITEMS`]; else the reason, naming the field (`target.model`,
/// `runs[0].phases[2].samples`).
pub(super) fn bounded(doc: &Value) -> Result<(), String> {
    fn walk(v: &Value, path: &mut String) -> Result<(), String> {
        let named = |path: &str| {
            if path.is_empty() {
                "the document".to_owned()
            } else {
                format!("field {path}")
            }
        };
        match v {
            Value::String(s) if s.len() > MAX_STRING_BYTES => Err(format!(
                "{} is {} bytes long (at most {MAX_STRING_BYTES})",
                named(path),
                s.len()
            )),
            Value::Array(items) => {
                if items.len() > MAX_ARRAY_ITEMS {
                    return Err(format!(
                        "{} has {} items (at most {MAX_ARRAY_ITEMS})",
                        named(path),
                        items.len()
                    ));
                }
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(item, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            Value::Object(fields) => {
                for (key, item) in fields {
                    if key.len() > MAX_STRING_BYTES {
                        return Err(format!(
                            "a key of {} is {} bytes long (at most {MAX_STRING_BYTES})",
                            named(path),
                            key.len()
                        ));
                    }
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&crate::report::visible(key));
                    walk(item, path)?;
                    path.truncate(len);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
    walk(doc, &mut String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_name_the_field() {
        let doc = serde_json::json!({"target": {"model": "x".repeat(MAX_STRING_BYTES + 1)}});
        let e = bounded(&doc).unwrap_err();
        assert!(
            e.starts_with("field target.model is 16385 bytes long"),
            "{e}"
        );
        let doc =
            serde_json::json!({"runs": [{"phases": [{"samples": vec![0; MAX_ARRAY_ITEMS + 1]}]}]});
        let e = bounded(&doc).unwrap_err();
        assert!(
            e.starts_with("field runs[0].phases[0].samples has 100001 items"),
            "{e}"
        );
        let ok = serde_json::json!({"target": {"model": "x".repeat(MAX_STRING_BYTES)}});
        assert_eq!(bounded(&ok), Ok(()));
    }
}
