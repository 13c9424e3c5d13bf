"""Real tokenizer files for the generated Hugging Face checkpoints (scripts/hf_reference).

Each kind is rebuilt from a real vocabulary: one of ../shared/corpus/vocab/*.gguf or the Gemma 3
model (~/.cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf). transformers' own GGUF loading makes the
fast tokenizer (`AutoTokenizer.from_pretrained(dir, gguf_file=...)`, then `save_pretrained`:
tokenizer.json, tokenizer_config.json, chat_template.jinja when the GGUF has a template); for the
SentencePiece kinds a tokenizer.model is built beside it from the GGUF's tokens, scores and types
(sentencepiece's own `sentencepiece_model_pb2`), as a real Llama 2 / Mistral / Phi-3 / Gemma folder
holds both.

    write_tokenizer(kind, out_dir, vocab_dir, cache) -> number of tokens

is what make_checkpoints.py calls (each kind is made once in `cache`, then copied). Run directly:

    tokenizers.py KIND OUT_DIR [VOCAB_DIR]      (the reference python; KIND from KINDS)

This file's name is the `tokenizers` package's: it takes its own folder off sys.path so that
transformers imports the real one; load it by path (importlib), never as `import tokenizers`.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

GEMMA3 = Path(os.environ.get("GGUFKIT_GEMMA3",
                             Path.home() / ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf"))

# kind: (the vocabulary GGUF, SentencePiece (writes tokenizer.model), what the kind adds)
KINDS: dict[str, tuple[str, bool, str]] = {
    # Llama 3: byte-level BPE; Meta's tokenizer.json adds <|begin_of_text|> in its post-processor
    "llama-bpe": ("ggml-vocab-llama-bpe.gguf", False, "bos-template"),
    # Qwen 2 / 2.5 / 3: byte-level BPE, no BOS, a chat template
    "qwen2": ("ggml-vocab-qwen2.gguf", False, ""),
    # further BPE pre-tokenizers the script identifies by hash
    "deepseek-llm": ("ggml-vocab-deepseek-llm.gguf", False, ""),
    "deepseek-coder": ("ggml-vocab-deepseek-coder.gguf", False, ""),
    "falcon": ("ggml-vocab-falcon.gguf", False, ""),
    "gpt-2": ("ggml-vocab-gpt-2.gguf", False, ""),
    "starcoder": ("ggml-vocab-starcoder.gguf", False, ""),
    # Llama 2 (and Mistral 7B, the same kind of SentencePiece BPE model)
    "llama-spm": ("ggml-vocab-llama-spm.gguf", True, ""),
    "mistral": ("ggml-vocab-llama-spm.gguf", True, ""),
    # Phi-3: SentencePiece with added tokens and a chat template
    "phi3": ("ggml-vocab-phi-3.gguf", True, "added-json"),
    # Gemma 3 (text): SentencePiece without a dummy prefix, 262144 tokens
    "gemma3": (str(GEMMA3), True, ""),
}


def _gguf_source(vocab_dir: Path, name: str) -> Path:
    p = Path(name)
    return p if p.is_absolute() else vocab_dir / name


def _gguf_available() -> None:
    # transformers asks importlib.metadata for gguf's version; the sdist's gguf-py (put on
    # PYTHONPATH by make_checkpoints.sh) has no distribution metadata, so answer the check here
    import transformers.modeling_gguf_pytorch_utils as m

    m.is_gguf_available = lambda *a, **k: True
    import transformers.utils.import_utils as iu

    iu.is_gguf_available = lambda *a, **k: True


def _read_fields(path: Path) -> dict:
    """The GGUF's tokenizer.ggml.* and general.architecture values (gguf-py's reader)."""
    import gguf

    r = gguf.GGUFReader(str(path))
    out = {}
    for k, f in r.fields.items():
        if k.startswith("tokenizer.ggml.") or k == "general.architecture":
            out[k] = f.contents()
    return out


# SentencePiece kinds whose model has fewer pieces than the GGUF has tokens: the rest are the
# folder's added tokens (added_tokens.json, tokenizer_config.json) and padding
SPM_PIECES = {"phi3": 32000}


def _write_spm_model(fields: dict, out: Path, pieces: int | None) -> None:
    """tokenizer.model: a SentencePiece BPE model with the GGUF's pieces, scores and types."""
    from sentencepiece import sentencepiece_model_pb2 as pb

    tokens = fields["tokenizer.ggml.tokens"][:pieces]
    scores = (fields.get("tokenizer.ggml.scores") or [0.0] * len(tokens))[:pieces]
    types = (fields.get("tokenizer.ggml.token_type") or [1] * len(tokens))[:pieces]
    m = pb.ModelProto()
    for text, score, ty in zip(tokens, scores, types):
        p = m.pieces.add()
        p.piece = text
        p.score = float(score)
        # GGUF's token types number as SentencePiece's (1 normal ... 6 byte)
        p.type = int(ty) if 1 <= int(ty) <= 6 else 1
    ts = m.trainer_spec
    ts.model_type = pb.TrainerSpec.BPE
    ts.vocab_size = len(tokens)
    ts.byte_fallback = True
    ts.unk_id = int(fields.get("tokenizer.ggml.unknown_token_id", 0))
    ts.bos_id = int(fields.get("tokenizer.ggml.bos_token_id", -1))
    ts.eos_id = int(fields.get("tokenizer.ggml.eos_token_id", -1))
    ts.pad_id = int(fields.get("tokenizer.ggml.padding_token_id", -1))
    ns = m.normalizer_spec
    ns.name = "identity"
    ns.add_dummy_prefix = bool(fields.get("tokenizer.ggml.add_space_prefix", True))
    ns.remove_extra_whitespaces = False
    ns.escape_whitespaces = True
    (out / "tokenizer.model").write_bytes(m.SerializeToString())


def _bos_template(out: Path) -> None:
    """Meta's Llama 3 post-processor: byte-level, then <|begin_of_text|> before each sequence."""
    tj = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    bos = "<|begin_of_text|>"
    bos_id = next(t["id"] for t in tj["added_tokens"] if t["content"] == bos)
    tj["post_processor"] = {
        "type": "Sequence",
        "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
             "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                        {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"SpecialToken": {"id": bos, "type_id": 0}},
                      {"Sequence": {"id": "A", "type_id": 0}},
                      {"SpecialToken": {"id": bos, "type_id": 1}},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}},
        ],
    }
    (out / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False, indent=2),
                                        encoding="utf-8")
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["bos_token"] = bos
    cfg["add_bos_token"] = True
    cfg_path.write_text(json.dumps(cfg, ensure_ascii=False, indent=2), encoding="utf-8")


def _drop_extra_added(out: Path, n_tokens: int) -> None:
    """transformers' GGUF loading may add a token past the vocabulary (an `<|endoftext|>` it
    wants as a default): a real folder has none, and the model's vocab_size would not hold it."""
    tj_path = out / "tokenizer.json"
    tj = json.loads(tj_path.read_text(encoding="utf-8"))
    kept = [t for t in tj.get("added_tokens", []) if t["id"] < n_tokens]
    dropped = {t["content"] for t in tj.get("added_tokens", []) if t["id"] >= n_tokens}
    if not dropped:
        return
    tj["added_tokens"] = kept
    tj_path.write_text(json.dumps(tj, ensure_ascii=False, indent=2), encoding="utf-8")
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    dec = cfg.get("added_tokens_decoder")
    if isinstance(dec, dict):
        cfg["added_tokens_decoder"] = {k: v for k, v in dec.items() if int(k) < n_tokens}
    for key, value in list(cfg.items()):
        if key.endswith("_token") and value in dropped:
            cfg[key] = None
    cfg_path.write_text(json.dumps(cfg, ensure_ascii=False, indent=2), encoding="utf-8")


def _added_tokens_decoder(out: Path) -> None:
    """tokenizer_config.json's added_tokens_decoder, as transformers 4 saved it (the script's
    SentencePiece path reads it): tokenizer.json's added tokens by id."""
    tj = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    if "added_tokens_decoder" in cfg:
        return
    cfg["added_tokens_decoder"] = {
        str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip",
                                          "single_word", "special") if k in t}
        for t in tj.get("added_tokens", [])
    }
    cfg_path.write_text(json.dumps(cfg, ensure_ascii=False, indent=2), encoding="utf-8")


def _added_tokens_json(out: Path, pieces: int) -> None:
    """added_tokens.json: the added tokens past the SentencePiece model, content -> id."""
    tj = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    added = {t["content"]: t["id"] for t in tj.get("added_tokens", []) if t["id"] >= pieces}
    (out / "added_tokens.json").write_text(json.dumps(added, ensure_ascii=False, indent=2),
                                           encoding="utf-8")


def _make(kind: str, vocab_dir: Path, dest: Path) -> int:
    name, spm, extra = KINDS[kind]
    src = _gguf_source(vocab_dir, name)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: the vocabulary of tokenizer kind {kind!r} is absent")
    _gguf_available()
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    tok.save_pretrained(str(dest))
    fields = _read_fields(src)
    _drop_extra_added(dest, len(fields["tokenizer.ggml.tokens"]))
    if spm:
        _write_spm_model(fields, dest, SPM_PIECES.get(kind))
        _added_tokens_decoder(dest)
    if extra == "added-json":
        _added_tokens_json(dest, SPM_PIECES[kind])
    if extra == "bos-template":
        _bos_template(dest)
    # the files a checkpoint folder holds; transformers' saved extras stay out
    for f in dest.iterdir():
        if f.name not in ("tokenizer.json", "tokenizer_config.json", "tokenizer.model",
                          "chat_template.jinja", "special_tokens_map.json",
                          "added_tokens.json"):
            f.unlink() if f.is_file() else shutil.rmtree(f)
    return len(fields["tokenizer.ggml.tokens"])


def write_tokenizer(kind: str, out_dir: Path, vocab_dir: Path, cache: Path) -> int:
    """Writes the tokenizer files of `kind` into `out_dir` (made once in `cache/kind`); returns
    the number of tokens (the checkpoint's vocab_size)."""
    if kind not in KINDS:
        raise ValueError(f"unknown tokenizer kind {kind!r}; known: {', '.join(KINDS)}")
    made = Path(cache) / kind
    if not (made / "n_tokens").is_file():
        Path(cache).mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=kind + ".", dir=cache))
        n = _make(kind, Path(vocab_dir), tmp)
        (tmp / "n_tokens").write_text(str(n))
        shutil.rmtree(made, ignore_errors=True)
        tmp.rename(made)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for f in made.iterdir():
        if f.name != "n_tokens":
            shutil.copy(f, out_dir / f.name)
    return int((made / "n_tokens").read_text())


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(f"usage: tokenizers.py KIND OUT_DIR [VOCAB_DIR]; KIND one of {', '.join(KINDS)}")
    kind, out = sys.argv[1], Path(sys.argv[2])
    root = _HERE.parent.parent
    vocab_dir = Path(sys.argv[3]) if len(sys.argv) > 3 else root.parent / "shared/corpus/vocab"
    with tempfile.TemporaryDirectory() as cache:
        n = write_tokenizer(kind, out, vocab_dir, Path(cache))
    print(f"{kind}: {n} tokens in {out}")


if __name__ == "__main__":
    main()
