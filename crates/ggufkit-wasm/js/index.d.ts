// Types of the ggufkit-wasm package (index.js over the wasm-bindgen module).

/** Loads the WebAssembly module (done on import where possible; a page over file:// passes the
 * .wasm's bytes). */
export function load(input?: BufferSource | URL | string | Response | WebAssembly.Module): Promise<void>;

/** The optional parts this build has: `["tokenizer", "chat"]` in the npm package, none in a
 * slim build, whose `tokenizer()` and `applyChatTemplate()` throw a GgufError saying so. */
export function features(): Array<"tokenizer" | "chat">;

/** Every error the package throws. */
export interface GgufError extends Error {
  name: "GgufError";
  /** The rule of the spec broken (`truncated`, `bad_magic`, ...), or null. */
  rule: string | null;
  /** The byte offset of the offending field, or null. */
  offset: number | null;
  /** The file name or URL. */
  location: string | null;
}
export const GgufError: {
  (message: string, rule?: string | null, offset?: number | null, location?: string | null): GgufError;
  [Symbol.hasInstance](e: unknown): e is GgufError;
};

export interface OpenOptions {
  /** What messages and the JSON's `file` say (default: the File's name, the URL, or ""). */
  name?: string;
  /** Open files that break rules which leave them readable (as `gguf`'s read-only commands). */
  permissive?: boolean;
}

export interface UrlOptions extends OpenOptions {
  /** The fetch function to use (default: globalThis.fetch). */
  fetch?: typeof fetch;
}

/** A metadata value to set: text as `gguf meta set` takes it, a number, a boolean, an array, or
 * a value with its type (`uint32`, `array[int8]`, ...). */
export type EditValue = string | number | boolean | unknown[] | { type: string; value: unknown };

export type MetadataValue =
  | number | bigint | boolean | string | string[]
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array
  | BigUint64Array | BigInt64Array | Float32Array | Float64Array
  | MetadataValue[];

export interface Edits {
  set?: Record<string, EditValue>;
  remove?: string[];
}

export interface ChatOptions {
  tools?: unknown[];
  documents?: unknown[];
  addGenerationPrompt?: boolean;
  kwargs?: Record<string, unknown>;
  /** A named template (`tokenizer.chat_template.NAME`); default transformers' pick. */
  template?: string;
}

export class Tokenizer {
  private constructor();
  free(): void;
  /** llama_tokenize: addSpecial defaults to true, parseSpecial to false (as `gguf tokenize`). */
  encode(text: string, options?: { addSpecial?: boolean; parseSpecial?: boolean }): Uint32Array;
  decode(ids: Uint32Array | number[], options?: { removeSpecial?: boolean; unparseSpecial?: boolean }): string;
  decodeBytes(ids: Uint32Array | number[], options?: { removeSpecial?: boolean; unparseSpecial?: boolean }): Uint8Array;
  token(id: number): string | undefined;
  readonly vocabSize: number;
  applyChatTemplate(messages: unknown[], options?: ChatOptions): string;
}

export class GgufFile {
  private constructor();
  free(): void;
  /** Opens a GGUF in memory; only its header is copied into WebAssembly memory. */
  static fromBytes(bytes: Uint8Array, options?: OpenOptions): GgufFile;
  /** Opens a Blob or File, reading only the slices the parser asks for. */
  static fromBlob(blob: Blob, options?: OpenOptions): Promise<GgufFile>;
  /** Opens a URL's header with Range requests. */
  static fromUrl(url: string | URL, options?: UrlOptions): Promise<GgufFile>;
  /** `gguf validate --json` of bytes, a Blob or a URL, whether the file opens or not. */
  static validateBytes(bytes: Uint8Array, options?: { name?: string }): string;
  static validateBlob(blob: Blob, options?: { name?: string; text?: boolean }): Promise<object | string>;
  static validateUrl(url: string | URL, options?: { name?: string; text?: boolean; fetch?: typeof fetch }): Promise<object | string>;

  readonly name: string;
  readonly version: number;
  readonly dataOffset: number;
  readonly fileSize: number;
  readonly kvCount: number;
  readonly tensorCount: number;
  /** The bytes the file was opened from (a Uint8Array or a Blob; none for a URL). */
  source?: Uint8Array | Blob;

  /** Every metadata value by key: numbers (64-bit integers as BigInt), strings, booleans, typed
   * arrays for arrays of numbers, string[] for arrays of strings, nested arrays as arrays. The
   * fastest way to every value. */
  metadata(): Record<string, MetadataValue>;
  /** Every pair in the file's order: `type` as `gguf dump` names it (`uint32`, `array[string]`). */
  metadataEntries(): Array<{ key: string; type: string; value: MetadataValue }>;
  metadataParts(): Array<[string, "value" | "strings", unknown, string]>;
  /** `gguf dump --json` (an object; `toJSONText()` is the exact text). */
  toJSON(): object;
  toJSONText(): string;
  /** `gguf info --json` (`context`: tokens, as `--context N`). */
  summary(options?: { context?: number }): object;
  summaryText(options?: { context?: number }): string;
  /** `gguf validate --json`. */
  validate(): object;
  validateText(): string;
  /** `gguf audit --json` (`severity`: note, warning (default), error). */
  audit(options?: { severity?: "note" | "warning" | "error" }): object;
  auditText(options?: { severity?: "note" | "warning" | "error" }): string;
  /** `gguf layout --json`. */
  layout(): object[];
  layoutText(): string;
  /** `gguf tensors --json`. */
  tensors(): object;
  tensorsText(): string;
  tokenizer(): Tokenizer;
  chatTemplates(): string[];
  applyChatTemplate(messages: unknown[], options?: ChatOptions): string;
  /** The edited file's pieces: new bytes, or [start, end] ranges of the original. */
  editPieces(edits: Edits): Array<Uint8Array | [number, number]>;
  /** The edited file. Opened from bytes or a Blob: a Blob of the new header and slices of the
   * original (nothing copied, nothing read). Opened from a URL: a Promise of a Blob of the new
   * header and the tensor data fetched by Range requests (a browser keeps a large Blob on disk,
   * Node in memory: `editStream` bounds memory). `await file.edit(...)` works for both. */
  edit(edits: Edits): Blob | Promise<Blob>;
  /** The edited file as a stream read from the original only as it is pulled (one chunk of
   * `chunk` bytes at a time, default 8 MiB; a URL's data by Range requests checked against the
   * header's reading). `cost` counts the requests and bytes it fetched. */
  editStream(edits: Edits, options?: { chunk?: number; cost?: { requests: number; bytes: number } }): ReadableStream<Uint8Array>;
  /** For a file opened from a URL: where its data is read from by `edit` and `editStream`. */
  remote?: { url: string; size: number; etag: string | null; ranges: boolean };
}
