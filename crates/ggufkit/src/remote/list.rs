//! Listing an object-store prefix (`s3://bucket/models/`, `gs://bucket/`, `az://container/x/`)
//! through `object_store`'s `list`, for a scan: the `*.gguf` objects under it, as locations the
//! remote reader opens. Plain HTTP has no listing: an `http(s)://` URL always names one object.
#![forbid(unsafe_code)]

use futures_util::TryStreamExt;
use object_store::path::Path;
use url::{Position, Url};

use super::store::{self, counted, Counters};
use super::{runtime, RemoteOptions};
use crate::error::{Error, Location, LocationProblem, RemoteError, Result};

/// True when `url` names an object-store prefix to list rather than one object: an `s3://`,
/// `gs://` or `az://` location with no key, or whose key ends in `/`.
pub fn is_prefix(url: &str) -> bool {
    let Ok(u) = Url::parse(url) else {
        return false;
    };
    let store = matches!(
        u.scheme(),
        "s3" | "s3a" | "gs" | "az" | "azure" | "abfs" | "abfss"
    );
    store && (u.path().is_empty() || u.path().ends_with('/'))
}

/// One object of a listing: its URL, and the length and ETag the listing gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub url: String,
    pub size: u64,
    pub etag: Option<String>,
}

/// The `*.gguf` objects (any case) under the prefix `url`, as URLs of the same scheme and
/// bucket, sorted, each with its length and ETag. `Err` when the store cannot be built or the
/// listing fails (after retries).
pub fn list_gguf(url: &str, opts: &RemoteOptions) -> Result<Vec<Listed>> {
    let located = |problem| RemoteError::Location {
        url: url.to_string(),
        problem,
    };
    let parsed = Url::parse(url).map_err(|e| located(LocationProblem::Url(e.to_string())))?;
    let prefix = Path::from_url_path(parsed.path())
        .map_err(|e| located(LocationProblem::ObjectPath(e.to_string())))?;
    let store = store::shared_store(&parsed, opts).map_err(located)?;
    let counters = std::sync::Arc::new(Counters::default());
    let listing = counted(&counters, async {
        let prefix = (!prefix.as_ref().is_empty()).then_some(&prefix);
        store.list(prefix).try_collect::<Vec<_>>().await
    });
    let metas = runtime()
        .handle()
        .block_on(listing)
        .map_err(|e| Error::Io {
            context: "listing the prefix".to_string(),
            location: Some(Location::Url(url.to_string())),
            // one line: a store's error may quote the server's XML answer
            source: std::io::Error::other(
                e.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        })?;
    let base = &parsed[..Position::BeforePath];
    let mut out: Vec<Listed> = metas
        .into_iter()
        .filter(|m| {
            m.location
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
        })
        .filter_map(|m| {
            let mut u = Url::parse(base).ok()?;
            u.set_path(m.location.as_ref());
            Some(Listed {
                url: u.to_string(),
                size: m.size,
                etag: m.e_tag.filter(|e| !e.is_empty()),
            })
        })
        .collect();
    out.sort_by(|a, b| a.url.cmp(&b.url));
    Ok(out)
}
