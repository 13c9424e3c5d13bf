"""The vocabulary differential test's folders: for each tokenizer kind of tokenizers.py, a
Hugging Face folder (its tokenizer files and a small config.json of an architecture that reads
them), and convert_hf_to_gguf.py's `--vocab-only` output of it (crates/ggufkit/tests/convert_vocab.rs
compares every key of it with ggufkit's builders).

    vocab_cases.py OUT LLAMA_CPP_SRC VOCAB_DIR [KIND...]

writes OUT/<kind>/ (the folder) and OUT/<kind>.gguf; what exists is kept; a kind that cannot be
made leaves OUT/<kind>.error.txt saying why. Run by the reference python (vocab_cases.sh).
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

# kind: the architecture class whose set_vocab reads it
ARCH = {
    "llama-bpe": ("LlamaForCausalLM", "llama"),
    "qwen2": ("Qwen2ForCausalLM", "qwen2"),
    "deepseek-llm": ("LlamaForCausalLM", "llama"),
    "deepseek-coder": ("LlamaForCausalLM", "llama"),
    "falcon": ("LlamaForCausalLM", "llama"),
    "gpt-2": ("LlamaForCausalLM", "llama"),
    "starcoder": ("LlamaForCausalLM", "llama"),
    "llama-spm": ("LlamaForCausalLM", "llama"),
    # Llama 2's tokenizer.json alone (no tokenizer.model): the script's LlamaHfVocab
    "llama-hf": ("LlamaForCausalLM", "llama"),
    "mistral": ("MistralForCausalLM", "mistral"),
    "phi3": ("Phi3ForCausalLM", "phi3"),
    "gemma3": ("Gemma3ForCausalLM", "gemma3_text"),
}


# kinds made from another kind's tokenizer files
TOKENIZER = {"llama-hf": "llama-spm"}


def log(msg: str) -> None:
    print(f"vocab_cases: {msg}", file=sys.stderr, flush=True)


def main() -> None:
    out, src, vocab_dir = (Path(a) for a in sys.argv[1:4])
    kinds = sys.argv[4:] or list(ARCH)
    spec = importlib.util.spec_from_file_location("hf_ref_tokenizers", _HERE / "tokenizers.py")
    toks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toks)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / ".tokenizers"
    for kind in kinds:
        target = out / f"{kind}.gguf"
        err = out / f"{kind}.error.txt"
        if target.is_file():
            continue
        folder = out / kind
        try:
            shutil.rmtree(folder, ignore_errors=True)
            n = toks.write_tokenizer(TOKENIZER.get(kind, kind), folder, vocab_dir, cache)
            if kind == "llama-hf":
                (folder / "tokenizer.model").unlink()
        except Exception as e:  # noqa: BLE001 (the reason is the test's skip message)
            err.write_text(f"tokenizer files: {type(e).__name__}: {e}")
            log(f"{kind}: {e}")
            continue
        arch, model_type = ARCH[kind]
        config = {
            "architectures": [arch], "model_type": model_type, "hidden_size": 64,
            "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
            "num_key_value_heads": 2, "max_position_embeddings": 256, "rms_norm_eps": 1e-5,
            "vocab_size": n, "bos_token_id": 1, "eos_token_id": 2, "head_dim": 16,
        }
        (folder / "config.json").write_text(json.dumps(config, indent=2))
        tmp = out / f"{kind}.tmp.gguf"
        cmd = [sys.executable, str(src / "convert_hf_to_gguf.py"), str(folder), "--vocab-only",
               "--outfile", str(tmp)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            err.write_text(f"convert_hf_to_gguf.py --vocab-only failed:\n{r.stderr[-4000:]}")
            log(f"{kind}: convert_hf_to_gguf.py failed: {r.stderr[-400:]}")
            continue
        err.unlink(missing_ok=True)
        tmp.rename(target)
        log(f"wrote {target}")
    (out / "kinds.json").write_text(json.dumps(kinds))


if __name__ == "__main__":
    main()
