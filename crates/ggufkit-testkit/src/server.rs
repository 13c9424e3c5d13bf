//! A small HTTP/1.1 file server for the remote tests, on 127.0.0.1 with a port the OS picks:
//! honours `Range` (206 with `Content-Range`), `HEAD`, `If-Match` and keep-alive, logs every
//! request, and injects the faults a test asks for (503s, reset connections, stalls, bodies cut
//! short, `Range` ignored, an object that changes). It runs on its own thread and runtime and
//! stops when the `Server` is dropped; it only ever answers the connections the test makes.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The bytes of one served object: given bytes, then `zeros` more zero bytes made on the fly (so a
/// test can serve a 256 MB object without holding it).
#[derive(Clone, Debug)]
pub struct Object {
    pub bytes: Arc<Vec<u8>>,
    pub zeros: u64,
}

impl Object {
    /// An object of exactly these bytes.
    pub fn new(bytes: Vec<u8>) -> Self {
        Object {
            bytes: Arc::new(bytes),
            zeros: 0,
        }
    }

    /// Its length: the given bytes and the zeros after them.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64 + self.zeros
    }

    /// True for an empty object.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Faults to inject.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Answer GETs with 200 and the whole object whatever `Range` says.
    pub ignore_range: bool,
    /// The first N requests get `503 Service Unavailable`.
    pub fail_first: usize,
    /// The first N connections are closed before any answer (a reset).
    pub reset_first: usize,
    /// Every answer waits this long before its first byte.
    pub stall: Option<Duration>,
    /// Bodies are cut after this many bytes (the announced length stays), then the connection
    /// is closed; `truncate_times` limits how many responses are cut (0: all).
    pub truncate_at: Option<u64>,
    pub truncate_times: usize,
    /// After this many requests, the object has another ETag (and `If-Match` with the old one
    /// fails with 412 when `honour_if_match`).
    pub change_etag_after: Option<usize>,
    /// After this many requests, the object is one byte longer.
    pub grow_after: Option<usize>,
    pub honour_if_match: bool,
    /// Give no ETag at all.
    pub no_etag: bool,
}

/// One logged request.
#[derive(Clone, Debug)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub range: Option<String>,
    pub status: u16,
    /// Body bytes the server managed to write.
    pub sent: u64,
}

/// The running server; dropping it stops it.
pub struct Server {
    /// Where it listens (127.0.0.1, a port the OS picked).
    pub addr: std::net::SocketAddr,
    log: Arc<Mutex<Vec<Logged>>>,
    /// Requests read so far: an entry is logged once its answer is written, after the client
    /// may already have it all, so [`Server::log`] waits for the entries of these.
    requests: Arc<State>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct State {
    objects: HashMap<String, Object>,
    faults: Faults,
    requests: AtomicUsize,
    connections: AtomicUsize,
    truncated: AtomicUsize,
    log: Arc<Mutex<Vec<Logged>>>,
    written: AtomicU64,
}

impl Server {
    /// Serves `objects` (path → object, paths starting with `/`) with `faults`.
    pub fn start(objects: HashMap<String, Object>, faults: Faults) -> Server {
        let log = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::new(State {
            objects,
            faults,
            requests: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            truncated: AtomicUsize::new(0),
            log: Arc::clone(&log),
            written: AtomicU64::new(0),
        });
        let requests = Arc::clone(&state);
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).unwrap();
                loop {
                    tokio::select! {
                        _ = &mut rx => break,
                        acc = listener.accept() => {
                            let Ok((sock, _)) = acc else { break };
                            let st = Arc::clone(&state);
                            tokio::spawn(async move { let _ = connection(st, sock).await; });
                        }
                    }
                }
            });
        });
        Server {
            addr,
            log,
            requests,
            stop: Some(tx),
            thread: Some(thread),
        }
    }

    /// One object at `/path`, no faults.
    pub fn one(path: &str, bytes: Vec<u8>) -> Server {
        Self::start(
            HashMap::from([(path.to_string(), Object::new(bytes))]),
            Faults::default(),
        )
    }

    /// The `http://` location of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request read so far, once each is answered (waiting up to 5 s for the last ones:
    /// the server logs a request after writing its answer, which the client may have read).
    pub fn log(&self) -> Vec<Logged> {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let log = self.log.lock().unwrap().clone();
            let read = self.requests.requests.load(Ordering::SeqCst);
            if log.len() >= read || std::time::Instant::now() > deadline {
                return log;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Body bytes written over all requests.
    pub fn sent(&self) -> u64 {
        self.log().iter().map(|l| l.sent).sum()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

const DATE: &str = "Wed, 21 Oct 2015 07:28:00 GMT";

async fn connection(st: Arc<State>, sock: TcpStream) -> std::io::Result<()> {
    let conn_no = st.connections.fetch_add(1, Ordering::SeqCst);
    if conn_no < st.faults.reset_first {
        // read the request, then close without a word: the client sees a reset/closed connection
        let mut buf = [0u8; 1024];
        let mut s = sock;
        let _ = tokio::time::timeout(Duration::from_secs(2), s.read(&mut buf)).await;
        return Ok(());
    }
    sock.set_nodelay(true)?;
    let (rd, mut wr) = sock.into_split();
    let mut rd = BufReader::new(rd);
    loop {
        // request line and headers
        let mut line = String::new();
        if rd.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("").to_string();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if rd.read_line(&mut h).await? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let n = st.requests.fetch_add(1, Ordering::SeqCst);
        let range = headers.get("range").cloned();
        let mut entry = Logged {
            method: method.clone(),
            path: path.clone(),
            range: range.clone(),
            status: 0,
            sent: 0,
        };
        let keep = respond(&st, n, &method, &path, &headers, &mut wr, &mut entry).await;
        st.log.lock().unwrap().push(entry);
        match keep {
            Ok(true) => continue,
            _ => {
                let _ = wr.shutdown().await;
                return Ok(());
            }
        }
    }
}

/// Answers one request; `Ok(true)` when the connection can carry another.
async fn respond(
    st: &State,
    n: usize,
    method: &str,
    path: &str,
    headers: &HashMap<String, String>,
    wr: &mut tokio::net::tcp::OwnedWriteHalf,
    entry: &mut Logged,
) -> std::io::Result<bool> {
    let f = &st.faults;
    if let Some(d) = f.stall {
        tokio::time::sleep(d).await;
    }
    if n < f.fail_first {
        entry.status = 503;
        wr.write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n")
            .await?;
        return Ok(true);
    }
    let Some(obj) = st.objects.get(path) else {
        entry.status = 404;
        wr.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
            .await?;
        return Ok(true);
    };
    let changed = f.change_etag_after.is_some_and(|k| n >= k);
    let grown = f.grow_after.is_some_and(|k| n >= k);
    let etag = if changed { "\"v2\"" } else { "\"v1\"" };
    let len = obj.len() + u64::from(grown);
    if f.honour_if_match {
        if let Some(m) = headers.get("if-match") {
            if m != etag {
                entry.status = 412;
                wr.write_all(b"HTTP/1.1 412 Precondition Failed\r\ncontent-length: 0\r\n\r\n")
                    .await?;
                return Ok(true);
            }
        }
    }
    let etag_line = if f.no_etag {
        String::new()
    } else {
        format!("etag: {etag}\r\n")
    };
    let range = headers
        .get("range")
        .filter(|_| !f.ignore_range && method == "GET")
        .and_then(|r| parse_range(r, len));
    let (status, start, end) = match (headers.get("range"), range) {
        (Some(_), Some(Err(()))) => {
            entry.status = 416;
            let head = format!(
                "HTTP/1.1 416 Range Not Satisfiable\r\ncontent-range: bytes */{len}\r\ncontent-length: 0\r\n\r\n"
            );
            wr.write_all(head.as_bytes()).await?;
            return Ok(true);
        }
        (_, Some(Ok((a, b)))) => (206, a, b),
        _ => (200, 0, len),
    };
    entry.status = status;
    let mut head = format!(
        "HTTP/1.1 {} {}\r\ncontent-length: {}\r\n{etag_line}last-modified: {DATE}\r\naccept-ranges: bytes\r\n",
        status,
        if status == 206 { "Partial Content" } else { "OK" },
        end - start
    );
    if status == 206 {
        head.push_str(&format!(
            "content-range: bytes {}-{}/{len}\r\n",
            start,
            end - 1
        ));
    }
    head.push_str("\r\n");
    wr.write_all(head.as_bytes()).await?;
    if method == "HEAD" {
        return Ok(true);
    }
    let mut stop = end;
    if let Some(t) = f.truncate_at {
        let k = st.truncated.fetch_add(1, Ordering::SeqCst);
        if f.truncate_times == 0 || k < f.truncate_times {
            stop = (start + t).min(end);
        }
    }
    // the body, in 64 KiB pieces, so a client that hangs up stops it
    let mut pos = start;
    let mut zeros = vec![0u8; 64 * 1024];
    while pos < stop {
        let piece_end = (pos + 64 * 1024).min(stop);
        let have = obj.bytes.len() as u64;
        let piece: &[u8] = if pos < have {
            &obj.bytes[pos as usize..piece_end.min(have) as usize]
        } else {
            zeros.truncate((piece_end - pos) as usize);
            &zeros
        };
        let w = piece.len() as u64;
        if wr.write_all(piece).await.is_err() {
            return Ok(false);
        }
        entry.sent += w;
        st.written.fetch_add(w, Ordering::Relaxed);
        pos += w;
        if zeros.len() < 64 * 1024 {
            zeros.resize(64 * 1024, 0);
        }
    }
    wr.flush().await?;
    Ok(stop == end)
}

/// `bytes=a-b` or `bytes=a-`, as a half-open range within `len`; `Err` when unsatisfiable.
fn parse_range(r: &str, len: u64) -> Option<Result<(u64, u64), ()>> {
    let spec = r.strip_prefix("bytes=")?;
    let (a, b) = spec.split_once('-')?;
    let a: u64 = a.parse().ok()?;
    let end = if b.is_empty() {
        len
    } else {
        (b.parse::<u64>().ok()? + 1).min(len)
    };
    if a >= len {
        return Some(Err(()));
    }
    Some(Ok((a, end)))
}
