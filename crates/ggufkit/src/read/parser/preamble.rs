//! The first 24 bytes: the magic, the version (which gives away the byte order) and the two
//! counts, each checked against the bytes that follow before anything is sized by it.
#![forbid(unsafe_code)]

use super::{PResult, Parser, Stop};
use crate::endian::Endian;
use crate::read::source::Source;
use crate::rules;
use crate::wire::{MIN_KV, MIN_TENSOR_INFO};

/// The counts of the header, checked against the bytes and the reader's index limits.
pub(super) struct Counts {
    pub tensors: u64,
    pub kvs: u64,
}

impl<S: Source> Parser<'_, S> {
    /// `magic`, or `truncated` inside it.
    pub(super) fn magic(&mut self) -> PResult<()> {
        let have = self.cur.src.available(4)?;
        let head = self.cur.bytes();
        if !rules::magic(head) {
            return Err(Stop::Rule(rules::magic_violation(head)));
        }
        if !have {
            return Err(Stop::Rule(rules::truncated_magic(head.len().min(4))));
        }
        self.cur.pos = 4;
        Ok(())
    }

    /// The version, and with it the byte order (a big-endian file is valid, but ggml does not
    /// read it: a warning).
    pub(super) fn version(&mut self) -> PResult<u32> {
        self.cur.need(4, 4, &|_: &[u8]| "the version".into())?;
        let raw = self.cur.bytes()[4..8]
            .first_chunk::<4>()
            .copied()
            .unwrap_or_default();
        self.cur.endian = Endian::detect(raw);
        let version = self.cur.endian.u32(raw);
        if !rules::version(version) {
            return Err(Stop::Rule(rules::version_violation(
                version,
                self.cur.endian,
            )));
        }
        self.cur.pos = 8;
        if self.cur.endian == Endian::Big {
            self.warn(rules::ggml_endian_warning());
        }
        Ok(version)
    }

    /// The tensor and key-value counts, each checked against the bytes that must follow it.
    pub(super) fn counts(&mut self) -> PResult<Counts> {
        let tensors = self.cur.read_u64(&|_: &[u8]| "the tensor count".into())?;
        self.cur
            .need_count(tensors, MIN_TENSOR_INFO, 8, &|_: &[u8]| {
                "the tensor count".into()
            })?;
        let kvs = self
            .cur
            .read_u64(&|_: &[u8]| "the key-value count".into())?;
        self.cur
            .need_count(kvs, MIN_KV, 16, &|_: &[u8]| "the key-value count".into())?;
        // Indices are 4 bytes: 2^32 pairs or tensors would take a header of 55 GB at least.
        for (count, what) in [(tensors, "tensor infos"), (kvs, "key-value pairs")] {
            if count > u64::from(u32::MAX) {
                return Err(Stop::Io(std::io::Error::other(format!(
                    "the header declares {count} {what}, more than the 2^32-1 this reader indexes"
                ))));
            }
        }
        Ok(Counts { tensors, kvs })
    }
}
