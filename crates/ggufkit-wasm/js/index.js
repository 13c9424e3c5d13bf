// ggufkit for JavaScript: the entry of the npm package that scripts/build_wasm.sh assembles.
//
// An ES module for Node 20 and browsers. It loads ggufkit_wasm_bg.wasm beside it when imported
// (Node: from the file; a browser: with fetch). Where that cannot work (a page opened from
// file://, a bundler), the import still succeeds and `await load(bytesOrUrlOrResponse)` loads it.
//
// The WebAssembly side (crates/ggufkit-wasm) parses, validates, audits, tokenizes and edits; this
// file only moves bytes: the slices of a Blob and the Range requests of a URL that the header
// reader asks for (HeaderReader.nextRange, the library's rule), and the Blob of an edit.

import * as wasm from "./ggufkit_wasm.js";

const { default: init, GgufFile, HeaderReader, errorClass, firstChunk, buildFeatures } = wasm;
/** The tokenizer class (undefined in a build without the tokenizer: see `features()`). */
export const Tokenizer = wasm.Tokenizer;
export { GgufFile };

/** The optional parts this build has: `["tokenizer", "chat"]` in the npm package, none in a
 * slim build (`scripts/build_wasm.sh --slim`), whose `tokenizer()` and `applyChatTemplate()`
 * throw a GgufError that says they are not in it. */
export function features() {
  return buildFeatures();
}

const wasmUrl = new URL("./ggufkit_wasm_bg.wasm", import.meta.url);
let loaded = null;

/** Loads the WebAssembly module once: from `input` (bytes, a URL, a Response) or from the file
 * beside this module. Resolves when the package is ready. */
export function load(input) {
  if (!loaded || input !== undefined) {
    loaded = (async () => {
      let source = input;
      if (source === undefined) {
        const node = typeof process !== "undefined" && process.versions && process.versions.node;
        if (node && wasmUrl.protocol === "file:") {
          const { readFile } = await import("node:fs/promises");
          source = await readFile(wasmUrl);
        } else {
          source = wasmUrl;
        }
      }
      await init({ module_or_path: source });
    })();
  }
  return loaded;
}

try {
  await load();
} catch {
  // left to an explicit load(): a page over file:// cannot fetch the .wasm beside it
  loaded = null;
}

let errorCtor = null;
/** The class of every error the package throws: `rule` and `offset` for a broken rule of the
 * spec (null otherwise), `location`, and the message the `gguf` command prints. */
export function GgufError(message, rule = null, offset = null, location = null) {
  return new (gguferror())(message, rule, offset, location);
}
function gguferror() {
  if (!errorCtor) errorCtor = errorClass();
  return errorCtor;
}
Object.defineProperty(GgufError, Symbol.hasInstance, { value: (e) => e instanceof gguferror() });

// ---- bytes in memory --------------------------------------------------------------------------

const fromBytesWasm = GgufFile.fromBytes;
/** Opens the GGUF in a Uint8Array (only its header is copied into WebAssembly memory).
 * Options: `name`, `permissive`. */
GgufFile.fromBytes = function fromBytes(bytes, options = {}) {
  const file = fromBytesWasm.call(GgufFile, bytes, options);
  file.source = bytes;
  return file;
};

/** A `metadataParts()` payload as the value it stands for (an array of strings sliced from its
 * one text). */
function partValue(kind, payload) {
  if (kind !== "strings") return payload;
  const [text, ends] = payload;
  const list = new Array(ends.length);
  let at = 0;
  for (let i = 0; i < ends.length; i++) {
    list[i] = text.slice(at, ends[i]);
    at = ends[i];
  }
  return list;
}

/** Every metadata value, by key: numbers (64-bit integers as BigInt), strings, booleans, arrays
 * of numbers as typed arrays, arrays of strings as arrays of strings, nested arrays as arrays. */
GgufFile.prototype.metadata = function metadata() {
  const out = {};
  for (const [key, kind, payload] of this.metadataParts()) out[key] = partValue(kind, payload);
  return out;
};

/** Every metadata pair in the file's order as `{key, type, value}`: `type` as `gguf dump` names
 * it (`uint32`, `float32`, `array[string]`), `value` as `metadata()` gives it. */
GgufFile.prototype.metadataEntries = function metadataEntries() {
  return this.metadataParts().map(([key, kind, payload, type]) => ({ key, type, value: partValue(kind, payload) }));
};

// ---- Blob and File ----------------------------------------------------------------------------

/** Reads the header of a Blob slice by slice, as the parser asks (a 20 GB file's header without
 * its data). Resolves to a HeaderReader holding it. */
async function readBlob(blob, name, permissive) {
  const reader = new HeaderReader(blob.size, name, permissive);
  let requests = 0;
  let bytes = 0;
  for (let r = reader.nextRange(); r; r = reader.nextRange()) {
    const [start, end] = r;
    const buf = new Uint8Array(await blob.slice(start, end).arrayBuffer());
    requests += 1;
    bytes += buf.length;
    if (buf.length !== end - start) {
      reader.free();
      throw GgufError(`${name}: reading bytes ${start}..${end} gave ${buf.length} bytes`, null, null, name);
    }
    reader.push(buf);
  }
  return reader;
}

/** Opens a Blob or File (options: `name`, default the File's name; `permissive`). */
GgufFile.fromBlob = async function fromBlob(blob, options = {}) {
  const name = options.name ?? blob.name ?? "";
  const reader = await readBlob(blob, name, !!options.permissive);
  const file = reader.open();
  file.source = blob;
  return file;
};

/** `gguf validate --json` of a Blob or File, whether it opens or not (as an object; the text with
 * `{text: true}`). */
GgufFile.validateBlob = async function validateBlob(blob, options = {}) {
  const name = options.name ?? blob.name ?? "";
  const reader = await readBlob(blob, name, true);
  const text = reader.validateText();
  reader.free();
  return options.text ? text : JSON.parse(text);
};

// ---- URLs: Range requests ---------------------------------------------------------------------

/** A remote object read with Range requests as the header reader asks, checking that every
 * answer is about the same object and holds exactly the bytes asked for; a server that ignores
 * Range is read from its one plain response only as far as the header goes. */
class RemoteObject {
  constructor(url, fetchImpl) {
    this.url = url;
    this.fetch = fetchImpl;
    this.requests = 0;
    this.bytes = 0;
    this.size = null;
    this.etag = null;
    this.body = null; // the reader of a whole-object body (a server that ignores Range)
    this.ignoresRange = false;
    this.pending = new Uint8Array(0);
  }

  fail(message) {
    return GgufError(`${this.url}: ${message}`, null, null, this.url);
  }

  /** The first request: the first `chunk` bytes, which give the object's size and ETag. */
  async open(chunk) {
    const res = await this.get({ Range: `bytes=0-${chunk - 1}` });
    this.etag = res.headers.get("ETag");
    if (res.status === 206) {
      const range = contentRange(res.headers.get("Content-Range"));
      if (!range) throw this.fail(`the answer to a range request has no valid Content-Range`);
      this.size = range.total;
      const want = [0, Math.min(chunk, this.size)];
      if (range.start !== want[0] || range.end !== want[1]) {
        throw this.fail(`asked for bytes ${want[0]}..${want[1]}, the server sent bytes ${range.start}..${range.end}`);
      }
      return this.readBody(res, want[1] - want[0]);
    }
    if (res.status === 200) {
      const length = res.headers.get("Content-Length");
      if (length === null || !/^\d+$/.test(length)) {
        throw this.fail("the server ignores Range requests and does not say the object's length");
      }
      this.size = Number(length);
      this.ignoresRange = true;
      this.body = res.body.getReader();
      return new Uint8Array(0);
    }
    if (res.status === 416) {
      // an empty object has no byte 0 to ask for
      const range = /^bytes \*\/(\d+)$/.exec(res.headers.get("Content-Range") ?? "");
      if (range && Number(range[1]) === 0) {
        this.size = 0;
        return new Uint8Array(0);
      }
    }
    throw this.fail(`the server answered ${res.status} ${res.statusText}`.trim());
  }

  async get(headers) {
    this.requests += 1;
    try {
      return await this.fetch(this.url, { headers });
    } catch (e) {
      throw this.fail(`the request failed: ${e && e.message ? e.message : e}`);
    }
  }

  /** Bytes `start..end` of the object. */
  async range(start, end) {
    if (this.body) return this.fromBody(start, end);
    const headers = { Range: `bytes=${start}-${end - 1}` };
    if (this.etag && !this.etag.startsWith("W/")) headers["If-Match"] = this.etag;
    const res = await this.get(headers);
    if (res.status === 412) throw this.fail("the object changed while it was being read (its ETag no longer matches the first response's)");
    if (res.status !== 206) {
      throw this.fail(`asked for bytes ${start}..${end}, the server answered ${res.status} ${res.statusText}`.trim());
    }
    const range = contentRange(res.headers.get("Content-Range"));
    if (!range) throw this.fail(`the answer to a range request has no valid Content-Range`);
    if (range.total !== this.size) {
      throw this.fail(`the object changed while it was being read (its length was ${this.size} bytes, now ${range.total})`);
    }
    const etag = res.headers.get("ETag");
    if (this.etag && etag && etag !== this.etag) {
      throw this.fail(`the object changed while it was being read (its ETag was ${this.etag}, now ${etag})`);
    }
    if (range.start !== start || range.end !== end) {
      throw this.fail(`asked for bytes ${start}..${end}, the server sent bytes ${range.start}..${range.end}`);
    }
    return this.readBody(res, end - start);
  }

  /** A body of exactly `want` bytes: fewer is a body cut short, more a server that lies. */
  async readBody(res, want) {
    const out = new Uint8Array(want);
    let at = 0;
    const reader = res.body ? res.body.getReader() : null;
    while (reader) {
      const { done, value } = await this.next(reader, `${at} of the ${want} bytes it announced`);
      if (done) break;
      this.bytes += value.length;
      if (at + value.length > want) {
        await reader.cancel().catch(() => {});
        throw this.fail(`the server sent more than the ${want} bytes asked for`);
      }
      out.set(value, at);
      at += value.length;
    }
    if (at < want) throw this.fail(`the response ended after ${at} of the ${want} bytes it announced`);
    return out;
  }

  /** The next chunk of a body; a connection that breaks is a body cut short. */
  async next(reader, got) {
    try {
      return await reader.read();
    } catch (e) {
      throw this.fail(`the response ended after ${got} (${e && e.message ? e.message : e})`);
    }
  }

  /** Bytes `start..end` from the whole-object body, read on as far as that. */
  async fromBody(start, end) {
    const out = new Uint8Array(end - start);
    let at = 0;
    if (this.bodyAt === undefined) this.bodyAt = 0;
    if (start !== this.bodyAt) throw this.fail(`bytes ${start}..${end} asked out of order from a server that ignores Range`);
    while (at < out.length) {
      let chunk = this.pending;
      this.pending = new Uint8Array(0);
      if (chunk.length === 0) {
        const { done, value } = await this.next(this.body, `${this.bodyAt + at} of the ${this.size} bytes it announced`);
        if (done) {
          throw this.fail(`the response ended after ${this.bodyAt + at} of the ${this.size} bytes it announced`);
        }
        this.bytes += value.length;
        chunk = value;
      }
      const take = Math.min(chunk.length, out.length - at);
      out.set(chunk.subarray(0, take), at);
      at += take;
      if (take < chunk.length) this.pending = chunk.subarray(take);
    }
    this.bodyAt = end;
    return out;
  }

  /** Drops the whole-object body (the connection closes) once the header is read. */
  async close() {
    if (this.body) {
      await this.body.cancel().catch(() => {});
      this.body = null;
    }
  }
}

/** `bytes a-b/total` as {start, end (exclusive), total}. */
function contentRange(h) {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec((h ?? "").trim());
  if (!m) return null;
  return { start: Number(m[1]), end: Number(m[2]) + 1, total: Number(m[3]) };
}

async function readUrl(url, name, permissive, fetchImpl) {
  const obj = new RemoteObject(url, fetchImpl ?? globalThis.fetch.bind(globalThis));
  const first = await obj.open(firstChunk());
  const reader = new HeaderReader(obj.size, name, permissive);
  try {
    if (first.length) reader.push(first);
    for (let r = reader.nextRange(); r; r = reader.nextRange()) {
      reader.push(await obj.range(r[0], r[1]));
    }
  } catch (e) {
    reader.free();
    await obj.close();
    throw e;
  }
  await obj.close();
  reader.setCost(obj.requests, obj.bytes);
  return { reader, obj };
}

/** The data of a remote object, read again later (an edit's tensor data): the URL, the fetch
 * function, and what the header's reading learnt (its length, its ETag, whether the server
 * honours Range). */
function remoteSource(obj) {
  return { url: obj.url, fetch: obj.fetch, size: obj.size, etag: obj.etag, ranges: !obj.ignoresRange };
}

/** Bytes `start..end` of a remote source in chunks of at most `chunk` bytes, one fetched at a
 * time as the consumer asks: Range requests checked as the header's were (the same length,
 * the same ETag: If-Match), or, from a server that ignores Range, one plain response read on
 * to `start` and then to `end`. Counts into `cost` (requests, bytes). */
async function* remoteChunks(src, start, end, chunk, cost) {
  const obj = new RemoteObject(src.url, src.fetch);
  obj.size = src.size;
  obj.etag = src.etag;
  try {
    if (src.ranges) {
      for (let at = start; at < end; at += chunk) {
        const stop = Math.min(end, at + chunk);
        const requests = obj.requests;
        const bytes = obj.bytes;
        const part = await obj.range(at, stop);
        cost.requests += obj.requests - requests;
        cost.bytes += obj.bytes - bytes;
        yield part;
      }
      return;
    }
    cost.requests += 1;
    const res = await obj.get({});
    if (res.status !== 200) throw obj.fail(`the server answered ${res.status} ${res.statusText}`.trim());
    const length = res.headers.get("Content-Length");
    if (length !== null && Number(length) !== src.size) {
      await res.body?.cancel().catch(() => {});
      throw obj.fail(`the object changed while it was being read (its length was ${src.size} bytes, now ${length})`);
    }
    obj.body = res.body.getReader();
    const before = obj.bytes;
    try {
      // read on to `start` (the old header), in chunks too
      for (let at = 0; at < start; at += chunk) await obj.fromBody(at, Math.min(start, at + chunk));
      for (let at = start; at < end; at += chunk) yield await obj.fromBody(at, Math.min(end, at + chunk));
    } finally {
      cost.bytes += obj.bytes - before;
    }
  } finally {
    await obj.close();
  }
}

/** Opens the GGUF at a URL, its header by Range requests (options: `name`, default the URL;
 * `permissive`; `fetch`, a fetch function to use). Tensor data is not fetched; the JSON outputs
 * end with what the reads cost (`remote`), as the `gguf` command's for a URL. */
GgufFile.fromUrl = async function fromUrl(url, options = {}) {
  const name = options.name ?? String(url);
  const { reader, obj } = await readUrl(String(url), name, !!options.permissive, options.fetch);
  const file = reader.open();
  file.cost = { requests: obj.requests, bytes: obj.bytes };
  file.remote = remoteSource(obj);
  return file;
};

/** `gguf validate --json` of a URL, whether the file opens or not. */
GgufFile.validateUrl = async function validateUrl(url, options = {}) {
  const name = options.name ?? String(url);
  const { reader } = await readUrl(String(url), name, true, options.fetch);
  const text = reader.validateText();
  reader.free();
  return options.text ? text : JSON.parse(text);
};

// ---- edits ------------------------------------------------------------------------------------

/** The chunk an edit's stream reads at a time from a Blob or a URL (a Range request each). */
const EDIT_CHUNK = 8 << 20;

/** The file with `edits` applied ({set: {key: value}, remove: [key]}): the new header, then the
 * original's tensor data. Its bytes are those `gguf meta set` / `gguf meta rm` write.
 *
 * Opened from bytes or a Blob: a Blob of the new header and slices of the original (nothing
 * copied, nothing read). Opened from a URL: a Promise of a Blob of the new header and the data
 * fetched by Range requests in 8 MiB chunks, one after the other (`editStream`); a browser keeps
 * a large Blob on disk, Node holds it in memory: to write a large file with bounded memory, pipe
 * `editStream()` to its destination instead. `await file.edit(...)` works for both. */
GgufFile.prototype.edit = function edit(edits) {
  const source = this.source;
  if (!source) {
    if (!this.remote) throw GgufError(`${this.name}: the file has no source to take the tensor data from`, null, null, this.name);
    return new Response(this.editStream(edits)).blob();
  }
  const pieces = this.editPieces(edits);
  const parts = pieces.map((p) => {
    if (p instanceof Uint8Array) return p;
    const [start, end] = p;
    return source instanceof Uint8Array ? source.subarray(start, end) : source.slice(start, end);
  });
  return new Blob(parts, { type: "application/octet-stream" });
};

/** The edited file as a ReadableStream of Uint8Array chunks, read from the original only as the
 * consumer pulls (memory: one chunk of `options.chunk` bytes, default 8 MiB). For a URL the data
 * comes by Range requests checked against the header's reading (the same length and ETag); an
 * object that changed meanwhile is a GgufError in the stream. `options.cost`, when given, is an
 * object whose `requests` and `bytes` count what the stream fetched. The edit is checked before
 * the stream is made (a GgufError thrown here). */
GgufFile.prototype.editStream = function editStream(edits, options = {}) {
  const pieces = this.editPieces(edits);
  const chunk = Math.max(1, Math.floor(options.chunk ?? EDIT_CHUNK));
  const cost = options.cost ?? { requests: 0, bytes: 0 };
  cost.requests ??= 0;
  cost.bytes ??= 0;
  const source = this.source;
  const remote = this.remote;
  const name = this.name;
  async function* chunks() {
    for (const p of pieces) {
      if (p instanceof Uint8Array) {
        yield p;
        continue;
      }
      const [start, end] = p;
      if (source instanceof Uint8Array) {
        for (let at = start; at < end; at += chunk) yield source.subarray(at, Math.min(end, at + chunk));
      } else if (source) {
        for (let at = start; at < end; at += chunk) {
          const stop = Math.min(end, at + chunk);
          const buf = new Uint8Array(await source.slice(at, stop).arrayBuffer());
          if (buf.length !== stop - at) throw GgufError(`${name}: reading bytes ${at}..${stop} gave ${buf.length} bytes`, null, null, name);
          yield buf;
        }
      } else if (remote) {
        yield* remoteChunks(remote, start, end, chunk, cost);
      } else {
        throw GgufError(`${name}: the file has no source to take the tensor data from`, null, null, name);
      }
    }
  }
  const it = chunks();
  return new ReadableStream(
    {
      async pull(controller) {
        try {
          const { done, value } = await it.next();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (e) {
          controller.error(e);
        }
      },
      async cancel() {
        await it.return();
      },
    },
    { highWaterMark: 0 },
  );
};
