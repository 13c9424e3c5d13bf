//! A reader that hands out its bytes in chunks of chosen sizes, like a slow socket: the stream
//! reader must give the same answers whatever the chunks.
#![forbid(unsafe_code)]

use std::io::{self, Read};

/// A reader over `data` whose reads return at most the next size of a cycle of sizes.
#[derive(Clone, Debug)]
pub struct Chunked<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: Vec<usize>,
    k: usize,
}

impl<'a> Chunked<'a> {
    /// Chunks whose sizes cycle through `sizes` (one byte at a time when empty; a size of 0
    /// counts as 1).
    pub fn new(data: &'a [u8], sizes: Vec<usize>) -> Self {
        let sizes = if sizes.is_empty() { vec![1] } else { sizes };
        Chunked {
            data,
            pos: 0,
            sizes,
            k: 0,
        }
    }

    /// Bytes handed out so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.k % self.sizes.len()].max(1);
        self.k += 1;
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
