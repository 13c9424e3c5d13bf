//! The parser's [`Source`] over a remote object: `available(end)` fetches what is missing with one
//! range request, as far as the parser guesses the header goes ([`Source::expect`]) and at least
//! doubling what is held, so a header of `H` bytes costs `O(log H)` requests (2 for a typical
//! vocabulary) and at most the header plus one chunk of transfer. The object's size is known, so `total_len()` gives
//! it and every verdict is the one a local file of that length gets.
#![forbid(unsafe_code)]

use std::io;

use futures_util::StreamExt;
use tokio::runtime::Handle;

use super::object::{describe, Body, Object, Start};
use super::store::counted;
use crate::read::source::{next_fetch_end, Source};

pub(crate) struct RemoteSource<'a> {
    object: &'a Object,
    rt: &'a Handle,
    buf: Vec<u8>,
    /// The whole-object body of a server that ignores `Range`, read as far as asked.
    body: Option<Body>,
    first_chunk: u64,
    /// Where the parser guesses the header ends ([`Source::expect`]).
    expected: u64,
}

impl<'a> RemoteSource<'a> {
    pub fn new(object: &'a Object, rt: &'a Handle, start: Start, first_chunk: u64) -> Self {
        let (buf, body) = match start {
            Start::Ranged(b) => (b, None),
            Start::Whole(body) => (Vec::new(), Some(body)),
        };
        RemoteSource {
            object,
            rt,
            buf,
            body,
            first_chunk,
            expected: 0,
        }
    }

    /// The bytes fetched, from the object's first byte.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    fn read_body(&mut self, end: u64) -> io::Result<()> {
        let Some(body) = self.body.as_mut() else {
            return Ok(());
        };
        while (self.buf.len() as u64) < end {
            match self
                .rt
                .block_on(counted(&self.object.counters, body.next()))
            {
                Some(Ok(chunk)) => {
                    self.object.counters.add_bytes(chunk.len() as u64);
                    self.buf.extend_from_slice(&chunk);
                }
                Some(Err(e)) => return Err(describe(e, &self.object.loc)),
                None => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "the response ended after {} of the {} bytes it announced",
                            self.buf.len(),
                            self.object.size
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

impl Source for RemoteSource<'_> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        let have = self.buf.len() as u64;
        if end <= have {
            return Ok(true);
        }
        if end > self.object.size {
            // exactly what a local file of this length answers: no request needed
            return Ok(false);
        }
        if self.body.is_some() {
            self.read_body(end)?;
            return Ok(true);
        }
        // double what is held (at least the first chunk, at least `end`, as far as the parser
        // guesses the header goes), never past the end
        let target = next_fetch_end(have, end, self.first_chunk, self.expected, self.object.size);
        let bytes = self.rt.block_on(counted(
            &self.object.counters,
            self.object.range(have..target),
        ))?;
        self.buf.extend_from_slice(&bytes);
        Ok(true)
    }

    fn bytes(&self) -> &[u8] {
        &self.buf
    }

    fn total_len(&self) -> Option<u64> {
        Some(self.object.size)
    }

    fn expect(&mut self, end: u64) {
        // the latest guess knows the most
        self.expected = end;
    }
}
