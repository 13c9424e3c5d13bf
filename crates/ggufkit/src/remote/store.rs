//! Turning a location (`https://…`, `s3://…`, `gs://…`, `az://…`) into an `ObjectStore` and a
//! path, configured from the environment the way each store usually is, with our timeouts and
//! retries. One store (one HTTP client, its TLS setup and connection pool) serves every object of
//! an origin or bucket: building a client costs far more than a small header's request. Requests
//! are counted per read, not per client: a read runs inside [`counted`], and the connector adds
//! each request it sends (retries included) to that read's [`Counters`].
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::{BackoffConfig, ClientConfigKey, ClientOptions, ObjectStore, RetryConfig};
use url::{Position, Url};

use super::RemoteOptions;
use crate::error::LocationProblem;

/// What a remote reader counts: HTTP requests sent (retries included) and body bytes received.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub requests: AtomicU64,
    pub bytes: AtomicU64,
}

impl Counters {
    pub fn add_bytes(&self, n: u64) {
        self.bytes.fetch_add(n, Ordering::Relaxed);
    }
}

tokio::task_local! {
    /// The counters of the read whose future is running: the connector adds its requests here.
    static READ: Arc<Counters>;
}

/// Runs `fut` (requests to a store) with its requests counted in `counters`. The stores' HTTP
/// clients send requests from inside the future that awaits them, so the count is exact for
/// each read even when many reads share one client.
pub(crate) async fn counted<F: Future>(counters: &Arc<Counters>, fut: F) -> F::Output {
    READ.scope(Arc::clone(counters), fut).await
}

/// An object: its store, its path in the store, and the URL it was named by.
#[derive(Clone, Debug)]
pub(crate) struct Located {
    pub store: Arc<dyn ObjectStore>,
    pub path: Path,
}

/// The store for `url` and the object's path in it. Credentials and endpoints come from the
/// environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`) as each store's builder reads them; timeouts and
/// retries from `opts`. Stores are shared: the same origin (or bucket, container), options and
/// environment give the same store.
pub(crate) fn locate(url: &str, opts: &RemoteOptions) -> Result<Located, LocationProblem> {
    let parsed = Url::parse(url).map_err(|e| LocationProblem::Url(e.to_string()))?;
    let path = Path::from_url_path(parsed.path())
        .map_err(|e| LocationProblem::ObjectPath(e.to_string()))?;
    if path.as_ref().is_empty() {
        return Err(LocationProblem::NoObject);
    }
    // for s3://bucket/key, gs://bucket/key and az://container/key the host is the bucket and the
    // URL path the key, as for http://host/path
    let store = shared_store(&parsed, opts)?;
    Ok(Located { store, path })
}

/// What makes two locations share a store: scheme and authority (`https://host:port`,
/// `s3://bucket`), the options, and the environment the cloud builders read.
#[derive(Clone, PartialEq, Eq, Hash)]
struct StoreKey {
    origin: String,
    opts: RemoteOptions,
    env: Vec<(String, String)>,
}

/// Stores kept at once; past this many origins the cache starts again (a scan of many hosts
/// must not hold a client for each).
const MAX_STORES: usize = 64;

/// The store of `url`'s origin (or bucket), built on first use and shared after.
pub(crate) fn shared_store(
    url: &Url,
    opts: &RemoteOptions,
) -> Result<Arc<dyn ObjectStore>, LocationProblem> {
    static STORES: Mutex<Option<HashMap<StoreKey, Arc<dyn ObjectStore>>>> = Mutex::new(None);
    let env = if matches!(url.scheme(), "http" | "https") {
        Vec::new()
    } else {
        // `vars_os`: a variable that is not UTF-8 must not panic here
        let mut env: Vec<(String, String)> = std::env::vars_os()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .filter(|(k, _)| {
                ["AWS_", "GOOGLE_", "AZURE_"]
                    .iter()
                    .any(|p| k.starts_with(p))
            })
            .collect();
        env.sort();
        env
    };
    let key = StoreKey {
        origin: url[..Position::BeforePath].to_ascii_lowercase(),
        // the first chunk is the reader's, not the client's
        opts: RemoteOptions {
            first_chunk: 0,
            ..opts.clone()
        },
        env,
    };
    // a poisoned lock only means another thread panicked while holding the map: it is still a map
    let mut guard = STORES.lock().unwrap_or_else(|e| e.into_inner());
    let stores = guard.get_or_insert_with(HashMap::new);
    if let Some(s) = stores.get(&key) {
        return Ok(Arc::clone(s));
    }
    let store = build_store(url, opts)?;
    if stores.len() >= MAX_STORES {
        stores.clear();
    }
    stores.insert(key, Arc::clone(&store));
    Ok(store)
}

/// A new store for the origin of `url`, with a connector that counts requests.
fn build_store(
    parsed: &Url,
    opts: &RemoteOptions,
) -> Result<Arc<dyn ObjectStore>, LocationProblem> {
    let url = parsed.as_str();
    let connector = CountingConnector;
    let retry = retry_config(opts);
    let client = client_settings(opts);
    let store: Arc<dyn ObjectStore> = match parsed.scheme() {
        "http" | "https" => {
            let origin = parsed.origin().ascii_serialization();
            let mut b = HttpBuilder::new()
                .with_url(origin)
                .with_retry(retry)
                .with_http_connector(connector)
                .with_config(ClientConfigKey::AllowHttp, "true");
            for (k, v) in client {
                b = b.with_config(k, v);
            }
            Arc::new(b.build().map_err(store_problem)?)
        }
        "s3" | "s3a" => {
            let mut b = AmazonS3Builder::from_env()
                .with_url(url)
                .with_retry(retry)
                .with_http_connector(connector);
            for (k, v) in client {
                b = b.with_config(AmazonS3ConfigKey::Client(k), v);
            }
            // `AWS_ENDPOINT` pointing at plain HTTP (a local S3-compatible server) needs this
            if let Ok(v) = std::env::var("AWS_ALLOW_HTTP") {
                b = b.with_config(AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp), v);
            }
            Arc::new(b.build().map_err(store_problem)?)
        }
        "gs" => {
            let mut b = GoogleCloudStorageBuilder::from_env()
                .with_url(url)
                .with_retry(retry)
                .with_http_connector(connector);
            for (k, v) in client {
                b = b.with_config(GoogleConfigKey::Client(k), v);
            }
            Arc::new(b.build().map_err(store_problem)?)
        }
        "az" | "azure" | "abfs" | "abfss" => {
            let mut b = MicrosoftAzureBuilder::from_env()
                .with_url(url)
                .with_retry(retry)
                .with_http_connector(connector);
            for (k, v) in client {
                b = b.with_config(AzureConfigKey::Client(k), v);
            }
            Arc::new(b.build().map_err(store_problem)?)
        }
        other => return Err(LocationProblem::Scheme(other.to_string())),
    };
    Ok(store)
}

/// A store builder's refusal (credentials, endpoint or options), as its message.
fn store_problem(e: object_store::Error) -> LocationProblem {
    LocationProblem::Store(e.to_string())
}

fn retry_config(o: &RemoteOptions) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: o.retry_backoff,
            max_backoff: o.retry_backoff.saturating_mul(32),
            base: 2.0,
        },
        max_retries: o.max_retries,
        retry_timeout: o.retry_timeout,
    }
}

fn client_settings(o: &RemoteOptions) -> Vec<(ClientConfigKey, String)> {
    let ms = |d: std::time::Duration| format!("{}ms", d.as_millis().max(1));
    vec![
        (ClientConfigKey::ConnectTimeout, ms(o.connect_timeout)),
        (ClientConfigKey::ReadTimeout, ms(o.read_timeout)),
        (ClientConfigKey::Timeout, ms(o.request_timeout)),
    ]
}

/// The reqwest connector, counting each request it sends in the running read's counters.
#[derive(Debug)]
struct CountingConnector;

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        install_crypto();
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(CountingService { inner }))
    }
}

#[derive(Debug)]
struct CountingService {
    inner: HttpClient,
}

#[async_trait::async_trait]
impl HttpService for CountingService {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        // a request outside any read (none today) is sent uncounted
        let _ = READ.try_with(|c| c.requests.fetch_add(1, Ordering::Relaxed));
        self.inner.execute(req).await
    }
}

/// rustls is built with ring only (no aws-lc): install it as the process's TLS provider once.
fn install_crypto() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // an application may have installed its own provider first: keep it
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
