//! Byte order of a GGUF file.
//!
//! GGUF has no byte-order field: the spec detects it from the version, which is a small number, so
//! read little-endian its low 16 bits are zero exactly when the file is big-endian.
#![forbid(unsafe_code)]

use std::fmt;

/// The byte order every multi-byte field of a file (header and tensor data) is stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Little-endian: what ggml writes and reads.
    #[default]
    Little,
    /// Big-endian: valid per the spec, rejected by ggml.
    Big,
}

impl Endian {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };

    /// The spec's detection rule, applied to the four version bytes of a file.
    pub fn detect(version_bytes: [u8; 4]) -> Endian {
        if u32::from_le_bytes(version_bytes) & 0xffff == 0 {
            Endian::Big
        } else {
            Endian::Little
        }
    }

    /// `"little"` or `"big"`, as the JSON output spells it.
    pub fn name(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }

    /// True when values in this byte order can be used without swapping on this machine.
    pub fn is_native(self) -> bool {
        self == Self::NATIVE
    }

    #[inline]
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    #[inline]
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    #[inline]
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }

    #[inline]
    pub fn u16_bytes(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    #[inline]
    pub fn u32_bytes(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    #[inline]
    pub fn u64_bytes(self, v: u64) -> [u8; 8] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

impl fmt::Display for Endian {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_low_half_of_version() {
        assert_eq!(Endian::detect(3u32.to_le_bytes()), Endian::Little);
        assert_eq!(Endian::detect(3u32.to_be_bytes()), Endian::Big);
        // version 0 reads as zero either way: the spec calls it big-endian
        assert_eq!(Endian::detect([0; 4]), Endian::Big);
    }
}
