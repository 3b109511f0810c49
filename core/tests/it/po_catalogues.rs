//! The translation catalogues in `po/`: every translation keeps the `{named}` placeholders of
//! its message (so `fill` can put the values in), every catalogue is complete and has no fuzzy
//! entries, and `po/LINGUAS` lists exactly the catalogues there are.

use crate::common;

use common::po::{self, Entry};

fn catalogues() -> Vec<(String, Vec<Entry>)> {
    po::linguas()
        .into_iter()
        .map(|lang| {
            let entries = po::read(&po::po_dir().join(format!("{lang}.po")));
            (lang, entries)
        })
        .collect()
}

fn describe(lang: &str, e: &Entry) -> String {
    format!("po/{lang}.po:{} (msgid {:?})", e.line, e.msgid)
}

fn every_translation_keeps_the_placeholders_of_its_message() {
    let mut problems = Vec::new();
    for (lang, entries) in catalogues() {
        for e in entries.iter().filter(|e| !e.msgid.is_empty()) {
            let singular = po::placeholders(&e.msgid);
            match &e.msgid_plural {
                None => {
                    for s in e.msgstr.iter().filter(|s| !s.is_empty()) {
                        let got = po::placeholders(s);
                        if got != singular {
                            problems.push(format!(
                                "{}: translation has {got:?}, message has {singular:?}",
                                describe(&lang, e)
                            ));
                        }
                    }
                }
                Some(plural) => {
                    // A plural form may leave out what its singular leaves out (the count in
                    // "one file"), but never add a name or drop one both forms have.
                    let plural = po::placeholders(plural);
                    let both: Vec<_> = singular
                        .iter()
                        .filter(|p| plural.contains(p))
                        .cloned()
                        .collect();
                    for s in e.msgstr.iter().filter(|s| !s.is_empty()) {
                        let got = po::placeholders(s);
                        let unknown: Vec<_> = got
                            .iter()
                            .filter(|p| !singular.contains(p) && !plural.contains(p))
                            .collect();
                        let missing: Vec<_> = both.iter().filter(|p| !got.contains(p)).collect();
                        if !unknown.is_empty() || !missing.is_empty() {
                            problems.push(format!(
                                "{}: plural form adds {unknown:?} and drops {missing:?}",
                                describe(&lang, e)
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn every_catalogue_translates_every_message_of_the_template() {
    let template = po::read(&po::po_dir().join("agnostics.pot"));
    let wanted: Vec<&Entry> = template.iter().filter(|e| !e.msgid.is_empty()).collect();
    assert!(!wanted.is_empty(), "po/agnostics.pot has no messages");
    let mut problems = Vec::new();
    for (lang, entries) in catalogues() {
        for w in &wanted {
            let found = entries.iter().find(|e| {
                e.msgid == w.msgid && e.context == w.context && e.msgid_plural == w.msgid_plural
            });
            match found {
                None => problems.push(format!("po/{lang}.po lacks {:?}", w.msgid)),
                Some(e) if !e.is_translated() => {
                    problems.push(format!("{}: untranslated or fuzzy", describe(&lang, e)))
                }
                Some(_) => {}
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n(run po/update.sh, then translate)",
        problems.join("\n")
    );
}

fn catalogues_are_not_fuzzy_and_declare_utf8_and_their_language() {
    for (lang, entries) in catalogues() {
        let header = entries
            .iter()
            .find(|e| e.msgid.is_empty())
            .unwrap_or_else(|| panic!("po/{lang}.po has no header"));
        assert!(
            !header.flags.iter().any(|f| f == "fuzzy"),
            "po/{lang}.po: the header is fuzzy"
        );
        let h = &header.msgstr[0];
        assert!(
            h.contains("charset=UTF-8"),
            "po/{lang}.po: header lacks charset=UTF-8"
        );
        assert!(
            h.contains(&format!("Language: {lang}\n")),
            "po/{lang}.po: header lacks Language: {lang}"
        );
        assert!(
            h.contains("Plural-Forms: nplurals="),
            "po/{lang}.po: header lacks Plural-Forms"
        );
        for e in &entries {
            assert!(
                !e.flags.iter().any(|f| f == "fuzzy"),
                "{}: fuzzy",
                describe(&lang, e)
            );
        }
    }
}

fn linguas_lists_exactly_the_catalogues_in_po() {
    let mut listed = po::linguas();
    listed.sort();
    let mut present: Vec<String> = std::fs::read_dir(po::po_dir())
        .expect("read po/")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".po"))
                .map(str::to_owned)
        })
        .collect();
    present.sort();
    assert_eq!(listed, present);
}

fn placeholders_are_found_by_name() {
    assert_eq!(
        po::placeholders("{value} of {target}, {value}; {} {not a name}"),
        ["target", "value"]
    );
}

fn reader_handles_plurals_contexts_and_continued_strings() {
    let text = "msgid \"\"\nmsgstr \"\"\n\"Language: de\\n\"\n\n#, fuzzy\nmsgctxt \"verb\"\nmsgid \"Run\"\nmsgstr \"Laufen\"\n\nmsgid \"one {n}\"\nmsgid_plural \"many \"\n\"{n}\"\nmsgstr[0] \"ein {n}\"\nmsgstr[1] \"viele {n}\"\n\n#~ msgid \"old\"\n#~ msgstr \"alt\"\n";
    let entries = po::parse(text).expect("parses");
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].msgstr, ["Language: de\n"]);
    assert_eq!(entries[1].context.as_deref(), Some("verb"));
    assert!(!entries[1].is_translated(), "fuzzy is not translated");
    assert_eq!(entries[2].msgid_plural.as_deref(), Some("many {n}"));
    assert_eq!(entries[2].msgstr, ["ein {n}", "viele {n}"]);
}

agnostics_testkit::test_list!(
    every_translation_keeps_the_placeholders_of_its_message,
    every_catalogue_translates_every_message_of_the_template,
    catalogues_are_not_fuzzy_and_declare_utf8_and_their_language,
    linguas_lists_exactly_the_catalogues_in_po,
    placeholders_are_found_by_name,
    reader_handles_plurals_contexts_and_continued_strings,
);
