//! One remote object: its size and ETag learnt from the first response, then range reads that
//! check every later response describes the same object.
#![forbid(unsafe_code)]

use std::io;
use std::ops::Range;
use std::sync::Arc;

use futures_util::stream::{BoxStream, StreamExt};
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};

use super::store::{Counters, Located};

/// The body of a response, read as it arrives.
pub(crate) type Body = BoxStream<'static, object_store::Result<bytes::Bytes>>;

/// How the first bytes arrived.
pub(crate) enum Start {
    /// The server honoured `Range`: these are the first bytes (up to the first chunk).
    Ranged(Vec<u8>),
    /// The server ignored `Range` and answers with the whole object: this body is read only as far
    /// as the parser asks, then dropped (which closes the connection).
    Whole(Body),
}

/// A remote object whose size (and ETag, when the server gives one) is known.
#[derive(Debug)]
pub(crate) struct Object {
    pub loc: Located,
    pub size: u64,
    pub etag: Option<String>,
    pub counters: Arc<Counters>,
    /// False when the server answered a range request with the whole object.
    pub ranges: bool,
}

impl Object {
    /// The first request: a range of the first `chunk` bytes, which also gives the object's size
    /// (from `Content-Range`) and ETag. A server that ignores `Range` gets one plain GET instead.
    pub async fn open(
        loc: Located,
        counters: Arc<Counters>,
        chunk: u64,
    ) -> io::Result<(Object, Start)> {
        let first = GetOptions {
            range: Some(GetRange::Bounded(0..chunk.max(1))),
            ..Default::default()
        };
        match loc.store.get_opts(&loc.path, first).await {
            Ok(res) => {
                let mut obj = Object {
                    size: res.meta.size,
                    etag: res.meta.e_tag.clone(),
                    loc,
                    counters,
                    ranges: true,
                };
                obj.etag = obj.etag.filter(|e| !e.is_empty());
                let want = 0..chunk.min(obj.size);
                if res.range != want {
                    return Err(unexpected_range(&want, &res.range));
                }
                let bytes = obj
                    .read_body(res.into_stream(), want.end - want.start)
                    .await?;
                Ok((obj, Start::Ranged(bytes)))
            }
            Err(object_store::Error::NotSupported { .. }) => {
                // the HTTP store saw a 200 to a range request and dropped that response unread
                let res = loc
                    .store
                    .get_opts(&loc.path, GetOptions::default())
                    .await
                    .map_err(|e| describe(e, &loc))?;
                let obj = Object {
                    size: res.meta.size,
                    etag: res.meta.e_tag.clone().filter(|e| !e.is_empty()),
                    loc,
                    counters,
                    ranges: false,
                };
                Ok((obj, Start::Whole(res.into_stream())))
            }
            Err(e @ object_store::Error::NotFound { .. }) => Err(describe(e, &loc)),
            Err(e) if !range_not_satisfiable(&e) => Err(describe(e, &loc)),
            Err(e) => {
                // an empty object has no byte 0 to ask for (416): learn its size another way
                match loc.store.head(&loc.path).await {
                    Ok(meta) if meta.size == 0 => Ok((
                        Object {
                            size: 0,
                            etag: meta.e_tag.filter(|e| !e.is_empty()),
                            loc,
                            counters,
                            ranges: true,
                        },
                        Start::Ranged(Vec::new()),
                    )),
                    _ => Err(describe(e, &loc)),
                }
            }
        }
    }

    /// Bytes `r` of the object (within its size), with one request, checking that the response
    /// is about the same object (length and ETag) and has exactly the bytes asked for.
    pub async fn range(&self, r: Range<u64>) -> io::Result<Vec<u8>> {
        if r.end > self.size || r.start > r.end {
            return Err(io::Error::other(format!(
                "bytes {}..{} are outside the object's {} bytes",
                r.start, r.end, self.size
            )));
        }
        if r.start == r.end {
            return Ok(Vec::new());
        }
        if !self.ranges {
            return Err(io::Error::other(format!(
                "the server ignores Range requests; reading bytes {}..{} would download the object \
                 from its start",
                r.start, r.end
            )));
        }
        let options = GetOptions {
            range: Some(GetRange::Bounded(r.clone())),
            // a weak ETag never matches If-Match (strong comparison): then only compare it below
            if_match: self.etag.clone().filter(|e| !e.starts_with("W/")),
            ..Default::default()
        };
        let res = self
            .loc
            .store
            .get_opts(&self.loc.path, options)
            .await
            .map_err(|e| describe(e, &self.loc))?;
        self.same_object(&res.meta)?;
        if res.range != r {
            return Err(unexpected_range(&r, &res.range));
        }
        self.read_body(res.into_stream(), r.end - r.start).await
    }

    /// Reads a body of exactly `want` bytes: fewer is an error (a body cut short), and so is more.
    async fn read_body(&self, mut body: Body, want: u64) -> io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(want.min(1 << 30) as usize);
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| describe(e, &self.loc))?;
            self.counters.add_bytes(chunk.len() as u64);
            if out.len() as u64 + chunk.len() as u64 > want {
                return Err(io::Error::other(format!(
                    "the server sent more than the {want} bytes asked for"
                )));
            }
            out.extend_from_slice(&chunk);
        }
        if (out.len() as u64) < want {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the response ended after {} of the {want} bytes it announced",
                    out.len()
                ),
            ));
        }
        Ok(out)
    }

    /// Errors when a response describes another version of the object than the first one did.
    pub fn same_object(&self, meta: &object_store::ObjectMeta) -> io::Result<()> {
        if meta.size != self.size {
            return Err(changed(format!(
                "its length was {} bytes, now {}",
                self.size, meta.size
            )));
        }
        if let (Some(was), Some(now)) = (&self.etag, &meta.e_tag) {
            if was != now {
                return Err(changed(format!("its ETag was {was}, now {now}")));
            }
        }
        Ok(())
    }
}

/// A 416 answer (`Range Not Satisfiable`): `object_store` keeps the status inside a private error
/// type, so it is recognised from the error's text.
fn range_not_satisfiable(e: &object_store::Error) -> bool {
    let mut text = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        text.push_str(&s.to_string());
        src = s.source();
    }
    text.contains("416") || text.contains("Range Not Satisfiable")
}

fn changed(what: String) -> io::Error {
    io::Error::other(format!(
        "the object changed while it was being read ({what})"
    ))
}

fn unexpected_range(want: &Range<u64>, got: &Range<u64>) -> io::Error {
    io::Error::other(format!(
        "asked for bytes {}..{}, the server sent bytes {}..{}",
        want.start, want.end, got.start, got.end
    ))
}

/// An `object_store` error as one line, with the cases a user can act on named plainly.
pub(crate) fn describe(e: object_store::Error, loc: &Located) -> io::Error {
    match e {
        object_store::Error::NotFound { .. } => io::Error::new(
            io::ErrorKind::NotFound,
            format!("no such object ({} in {})", loc.path, loc.store),
        ),
        object_store::Error::Precondition { .. } => {
            changed("its ETag no longer matches the first response's".into())
        }
        other => {
            let text = other.to_string();
            io::Error::other(text.split_whitespace().collect::<Vec<_>>().join(" "))
        }
    }
}
