//! `--prune-layers`: layers dropped from the model and the ones after renumbered, as
//! llama-quantize renames them (the first `blk.N.` of a name, anywhere in it).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

/// Renames tensors for a sorted, de-duplicated list of pruned layers, remembering each layer's
/// new number as it meets them (in the loader's order).
#[derive(Clone, Debug, Default)]
pub struct Pruner {
    prune: Vec<u32>,
    mapped: BTreeMap<u64, Option<u64>>,
    next_id: u64,
}

/// The first `blk.N.` in `name`: the byte range of N and its value.
fn find_layer(name: &str) -> Option<(usize, usize, u64)> {
    let b = name.as_bytes();
    let mut from = 0;
    while let Some(p) = name[from..].find("blk.") {
        let start = from + p + 4;
        let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && b.get(start + digits) == Some(&b'.') {
            let n = name[start..start + digits].parse().unwrap_or(u64::MAX);
            return Some((start, start + digits, n));
        }
        from += p + 1;
    }
    None
}

impl Pruner {
    /// A pruner for `layers` (any order, repeats allowed).
    pub fn new(layers: &[u32]) -> Self {
        let mut prune = layers.to_vec();
        prune.sort_unstable();
        prune.dedup();
        Pruner {
            prune,
            ..Default::default()
        }
    }

    /// Whether any layer is pruned.
    pub fn is_active(&self) -> bool {
        !self.prune.is_empty()
    }

    /// The new name of `name`, `None` when its layer is pruned.
    pub fn rename(&mut self, name: &str) -> Option<String> {
        if self.prune.is_empty() {
            return Some(name.to_string());
        }
        let Some((s, e, blk)) = find_layer(name) else {
            return Some(name.to_string());
        };
        let first = u64::from(self.prune[0]);
        if !self.mapped.contains_key(&blk) {
            let to = if self.prune.iter().any(|&p| u64::from(p) == blk) {
                None
            } else if blk < first {
                self.next_id = blk + 1;
                Some(blk)
            } else {
                self.next_id += 1;
                Some(self.next_id - 1)
            };
            self.mapped.insert(blk, to);
        }
        let to = self.mapped[&blk]?;
        Some(format!("{}{to}{}", &name[..s], &name[e..]))
    }

    /// The block count after pruning (`block_count` is set to it): the next layer number.
    pub fn block_count(&self) -> u64 {
        self.next_id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renumbers_after_pruned_layers() {
        let mut p = Pruner::new(&[2, 1, 2]);
        let names = [
            "output.weight",
            "blk.0.a",
            "blk.1.a",
            "blk.2.a",
            "blk.3.a",
            "blk.4.a",
            "v.blk.3.x",
        ];
        let out: Vec<Option<String>> = names.iter().map(|n| p.rename(n)).collect();
        assert_eq!(
            out,
            [
                Some("output.weight".into()),
                Some("blk.0.a".into()),
                None,
                None,
                Some("blk.1.a".into()),
                Some("blk.2.a".into()),
                Some("v.blk.1.x".into()),
            ]
        );
        assert_eq!(p.block_count(), 3);
        assert!(!Pruner::new(&[]).is_active());
    }
}
