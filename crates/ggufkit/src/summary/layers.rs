//! Where the tensor data goes by layer: the repeated blocks (`blk.N.*`) and the tensors outside
//! them (embeddings, output, norms), grouped by the first component of their names.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use crate::{TensorInfo, TensorType};

/// The tensor data of one block, by tensor type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerBytes {
    /// N of `blk.N.*`.
    pub layer: u64,
    /// Bytes per tensor type present in the layer, in the order of the type ids.
    pub by_type: Vec<(TensorType, u64)>,
}

impl LayerBytes {
    /// Bytes of the layer over all types.
    pub fn bytes(&self) -> u64 {
        self.by_type
            .iter()
            .fold(0u64, |a, (_, b)| a.saturating_add(*b))
    }
}

/// The tensor data of the tensors whose names start with `prefix` (up to the first `.`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixBytes {
    pub prefix: String,
    pub bytes: u64,
}

/// The layer of a tensor name `blk.N.…`.
fn layer_of(name: &str) -> Option<u64> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

/// The blocks in layer order, and the tensors outside them the largest first.
pub(super) fn bytes_by_layer<'t>(
    tensors: impl Iterator<Item = TensorInfo<'t>>,
) -> (Vec<LayerBytes>, Vec<PrefixBytes>) {
    let mut layers: BTreeMap<u64, BTreeMap<TensorType, u64>> = BTreeMap::new();
    let mut outside: BTreeMap<String, u64> = BTreeMap::new();
    for t in tensors {
        let name = t.name();
        let bytes = match layer_of(&name) {
            Some(l) => layers
                .entry(l)
                .or_default()
                .entry(t.tensor_type())
                .or_default(),
            None => {
                let prefix = name.split('.').next().unwrap_or_default();
                outside.entry(prefix.to_string()).or_default()
            }
        };
        *bytes = bytes.saturating_add(t.size());
    }
    let layers = layers
        .into_iter()
        .map(|(layer, types)| LayerBytes {
            layer,
            by_type: types.into_iter().collect(),
        })
        .collect();
    let mut outside: Vec<PrefixBytes> = outside
        .into_iter()
        .map(|(prefix, bytes)| PrefixBytes { prefix, bytes })
        .collect();
    outside.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    (layers, outside)
}
