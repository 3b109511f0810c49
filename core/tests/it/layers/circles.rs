//! Circles in a graph of files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The circles of a graph: for each strongly connected set of two or more files, one circle
/// through them found by a walk (Tarjan's algorithm for the sets).
pub fn circles(arrows: &BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>) -> Vec<Vec<PathBuf>> {
    struct Walk<'a> {
        arrows: &'a BTreeMap<PathBuf, BTreeMap<PathBuf, usize>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        sets: Vec<Vec<PathBuf>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a PathBuf) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.arrows.get(v).into_iter().flat_map(|m| m.keys()) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    set.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.sets.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        sets: Vec::new(),
    };
    for v in arrows.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    // One circle through each set: from its first file, follow arrows inside the set back to it.
    walk.sets
        .into_iter()
        .map(|set| {
            let start = set[0].clone();
            let mut path = vec![start.clone()];
            let mut seen = BTreeSet::from([start.clone()]);
            loop {
                let last = path.last().expect("a start").clone();
                let next = arrows[&last]
                    .keys()
                    .filter(|w| set.contains(w))
                    .find(|w| **w == start && path.len() > 1 || !seen.contains(*w));
                match next {
                    Some(w) if *w == start => break path,
                    Some(w) => {
                        seen.insert(w.clone());
                        path.push(w.clone());
                    }
                    None => break set,
                }
            }
        })
        .collect()
}
