"""ggufkit.Tokenizer: llama.cpp's ids and text from a GGUF's own tokenizer. The answers are
checked against llama.cpp itself (the cached reference of scripts/tokref, made from
node-llama-cpp's prebuilt library; SKIP without it), and the binding's own promises: numpy int32
ids, the batch equal to one by one, the file kept alive, clear errors."""

from __future__ import annotations

import gc
import json
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from conftest import REPO, need, shared_or_skip


def vocab(name: str) -> Path:
    return shared_or_skip(f"corpus/vocab/ggml-vocab-{name}.gguf")


def reference(path: Path) -> tuple[list[dict], list[dict]]:
    """llama.cpp's cached answers for `path` (encode cases, decode cases), or SKIP with why."""
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts/tokref/reference.py"), "build", str(path)],
        capture_output=True,
        text=True,
    )
    if r.returncode == 3:
        need("node-llama-cpp", r.stderr.strip())
    assert r.returncode == 0, r.stderr
    lines = Path(r.stdout.strip()).read_text(encoding="utf-8").split("\n")[1:]
    cases = [json.loads(line) for line in lines if line]
    return [c for c in cases if "text" in c], [c for c in cases if "ids" in c]


# what the library answers for a model it does not run yet (counted apart, not as a difference)
UNSUPPORTED = "is not available in this build"


@pytest.mark.parametrize("name", [
    "aquila", "baichuan", "bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon",
    "gemma-4", "gpt-2", "gpt-neox", "llama-bpe", "llama-spm", "mpt", "nomic-bert-moe", "phi-3",
    "qwen2", "qwen35", "refact", "starcoder",
])
def test_answers_are_llama_cpps(name):
    path = vocab(name)
    enc, dec = reference(path)
    tok = ggufkit.Tokenizer.from_file(path)
    enc = enc[::5]
    diffs = []
    unsupported = []
    for flags in [(a, p) for a in (False, True) for p in (False, True)]:
        group = [c for c in enc if (c["add_special"], c["parse_special"]) == flags]
        try:
            got = tok.encode_batch([c["text"] for c in group], *flags)
        except ggufkit.GGUFError as e:
            if UNSUPPORTED not in str(e):
                raise
            unsupported.append(str(e))
            continue
        for c, ids in zip(group, got):
            if ids.tolist() != c["expect_ids"]:
                diffs.append(("encode", c["text"], flags, ids.tolist(), c["expect_ids"]))
    for c in dec[::5]:
        try:
            got = tok.decode_bytes(c["ids"], c["remove_special"], c["unparse_special"])
        except ggufkit.GGUFError as e:
            if UNSUPPORTED not in str(e):
                raise
            unsupported.append(str(e))
            continue
        if got.hex() != c["expect_hex"]:
            diffs.append(("decode", c["ids"], got, bytes.fromhex(c["expect_hex"])))
    assert not diffs, f"{len(diffs)} differences from llama.cpp; first: {diffs[0]}"
    if unsupported:
        pytest.skip(f"SKIP: the library does not run {name}'s model yet: {unsupported[0]}")


def test_encode_forms_agree():
    tok = ggufkit.Tokenizer.from_file(vocab("llama-spm"))
    text = "Hello world! <s> 12345 naïve\n"
    ids = tok.encode(text)
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int32 and ids.ndim == 1
    assert ids[0] == tok.bos_id
    assert tok.count(text) == len(ids)
    assert tok.encode(text.encode()).tolist() == ids.tolist()
    assert tok.encode(text, add_special=False).tolist() == ids[1:].tolist()
    assert len(tok.encode(text, parse_special=True)) < len(ids)
    texts = [text * i for i in range(50)] + ["", "<|eot_id|>"]
    batch = tok.encode_batch(texts, False, True)
    assert [b.tolist() for b in batch] == [tok.encode(t, False, True).tolist() for t in texts]
    assert tok.encode_batch([]) == []
    # llama.cpp drops SentencePiece's space prefix when the first token has it; after a BOS it
    # stays, removed or not (llama_detokenize's answers for these ids)
    assert tok.decode(ids[1:]) == text
    assert tok.decode(ids) == " " + text
    assert tok.decode(np.asarray(ids), remove_special=True) == " " + text
    assert tok.decode(ids, unparse_special=True).startswith("<s> Hello")
    assert tok.decode_bytes(ids) == (" " + text).encode()


def test_properties():
    tok = ggufkit.Tokenizer.from_file(vocab("llama-bpe"))
    assert (tok.model, tok.pre, tok.vocab_size) == ("gpt2", "llama-bpe", 128256)
    assert tok.bos_id == 128000 and tok.eos_id is not None
    spm = ggufkit.Tokenizer.from_file(vocab("llama-spm"))
    assert (spm.model, spm.vocab_size, spm.bos_id, spm.eos_id) == ("llama", 32000, 1, 2)
    assert "llama-bpe" in repr(tok)


def test_file_tokenizer_keeps_the_file_alive():
    path = vocab("phi-3")
    f = ggufkit.open(path)
    tok = f.tokenizer
    assert f.tokenizer is tok, "built once per file"
    want = ggufkit.Tokenizer.from_file(path).encode("alive? 生きている")
    f.close()
    del f
    gc.collect()
    assert tok.encode("alive? 生きている").tolist() == want.tolist()


def test_bad_input_is_a_clear_error():
    tok = ggufkit.Tokenizer.from_file(vocab("llama-spm"))
    with pytest.raises(ValueError, match="byte offset 3"):
        tok.encode(b"abc\xff")
    with pytest.raises(ValueError, match="32000"):
        tok.decode([1, 32000])
    with pytest.raises(ValueError, match="-1"):
        tok.decode([1, -1])
    with pytest.raises(TypeError):
        tok.encode(5)
    with pytest.raises(ggufkit.GGUFError, match="tokenizer.ggml"):
        ggufkit.open(_no_tokenizer()).tokenizer


def _no_tokenizer() -> bytes:
    """A valid GGUF with one key and no tokenizer."""
    key, val = b"general.architecture", b"llama"
    out = b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + (1).to_bytes(8, "little")
    out += len(key).to_bytes(8, "little") + key + (8).to_bytes(4, "little")
    out += len(val).to_bytes(8, "little") + val
    return out


def test_encode_batch_releases_the_gil():
    """Another Python thread runs while a batch is encoded (the GIL is released)."""
    tok = ggufkit.Tokenizer.from_file(vocab("phi-3"))
    texts = ["some text to encode, again and again. " * 200] * 400
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=tick)
    t.start()
    out = tok.encode_batch(texts)
    done.set()
    t.join()
    assert len(out) == 400
    assert len(ticks) > 1


def test_from_file_reads_a_url(tmp_path):
    data = vocab("llama-spm").read_bytes()

    class Ranges(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

        def do_GET(self):
            m = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
            a = int(m.group(1)) if m else 0
            b = min(int(m.group(2)) if m and m.group(2) else len(data) - 1, len(data) - 1)
            body = data[a : b + 1]
            self.send_response(206 if m else 200)
            if m:
                self.send_header("Content-Range", f"bytes {a}-{b}/{len(data)}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Ranges)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v.gguf"
        tok = ggufkit.Tokenizer.from_file(url)
        local = ggufkit.Tokenizer.from_file(vocab("llama-spm"))
        assert tok.encode("Hello from afar").tolist() == local.encode("Hello from afar").tolist()
    finally:
        httpd.shutdown()
