"""Tiny random-weight Hugging Face checkpoints of every architecture `gguf convert` supports, and
llama.cpp's convert_hf_to_gguf.py's output for each of them at every --outtype: the differential
test's reference (crates/gguf-cli/tests/convert_hf.rs).

    make_checkpoints.py OUT LLAMA_CPP_SRC VOCAB_DIR

writes OUT/models/<case>/ (config.json, *.safetensors, tokenizer files) and
OUT/ref/<case>.<outtype>.gguf; what exists is kept (the folder is a cache keyed by the hash of the
generator scripts, see make_checkpoints.sh). Run by the reference python (torch, transformers).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# this folder's tokenizers.py would shadow the `tokenizers` package transformers imports
_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

OUTTYPES = ["f32", "f16", "bf16", "q8_0", "tq1_0", "tq2_0", "auto"]

LLAMA = dict(model_type="llama", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
             rms_norm_eps=1e-5)

# name: (architecture class, config, dtype, shard size or None, tokenizer kind)
CASES = {
    "llama3-bf16": ("LlamaForCausalLM",
                    dict(LLAMA, rope_theta=500000.0,
                         rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0,
                                           high_freq_factor=4.0,
                                           original_max_position_embeddings=64)),
                    "bfloat16", None, "llama-bpe"),
    "llama3-f16-sharded-tied": ("LlamaForCausalLM",
                                dict(LLAMA, tie_word_embeddings=True, num_key_value_heads=4),
                                "float16", "4MB", "llama-bpe"),
    "llama3-f32-linear": ("LlamaForCausalLM",
                          dict(LLAMA, hidden_size=256, intermediate_size=512, num_hidden_layers=1,
                               rope_scaling=dict(rope_type="linear", factor=2.0)),
                          "float32", None, "llama-bpe"),
    "llama2-spm-f16": ("LlamaForCausalLM", dict(LLAMA), "float16", None, "llama-spm"),
    "qwen2-bf16-tied": ("Qwen2ForCausalLM",
                        dict(LLAMA, model_type="qwen2", tie_word_embeddings=True),
                        "bfloat16", None, "qwen2"),
    "qwen3-bf16": ("Qwen3ForCausalLM", dict(LLAMA, model_type="qwen3", head_dim=32),
                   "bfloat16", None, "qwen2"),
    "mistral-f16-yarn": ("MistralForCausalLM",
                         dict(LLAMA, model_type="mistral", sliding_window=None,
                              rope_scaling=dict(rope_type="yarn", factor=4.0,
                                                original_max_position_embeddings=64)),
                         "float16", None, "mistral"),
    "gemma3-bf16": ("Gemma3ForCausalLM",
                    dict(LLAMA, model_type="gemma3_text", head_dim=32, sliding_window=32,
                         query_pre_attn_scalar=32),
                    "bfloat16", None, "gemma3"),
    "phi3-bf16": ("Phi3ForCausalLM", dict(LLAMA, model_type="phi3", num_key_value_heads=4),
                  "bfloat16", None, "phi3"),
    # Phi-3 128k: longrope with its long and short factors (rope_factors_long/short), GQA, a
    # sliding window
    "phi3-f16-longrope": ("Phi3ForCausalLM",
                          dict(LLAMA, model_type="phi3", sliding_window=32,
                               original_max_position_embeddings=64,
                               rope_scaling=dict(rope_type="longrope",
                                                 long_factor=[1.0, 1.25, 1.5, 2.0, 3.0, 4.0,
                                                              6.0, 8.0],
                                                 short_factor=[1.0, 1.0, 1.0625, 1.125, 1.25,
                                                               1.5, 1.75, 2.0])),
                          "float16", None, "phi3"),
    # Phi-4 mini: the same class with a GPT2Tokenizer (BPE), partial rotary, tied embeddings
    "phi4-bf16-gpt2-tied": ("Phi3ForCausalLM",
                            dict(LLAMA, model_type="phi3", partial_rotary_factor=0.5,
                                 tie_word_embeddings=True),
                            "bfloat16", None, "qwen2"),
    "mixtral-bf16": ("MixtralForCausalLM",
                     dict(LLAMA, model_type="mixtral", num_local_experts=4,
                          num_experts_per_tok=2),
                     "bfloat16", None, "llama-spm"),
    "qwen3moe-bf16": ("Qwen3MoeForCausalLM",
                      dict(LLAMA, model_type="qwen3_moe", num_experts=4, num_experts_per_tok=2,
                           moe_intermediate_size=64, head_dim=32),
                      "bfloat16", None, "qwen2"),
    "gemma2-f32": ("Gemma2ForCausalLM",
                   dict(LLAMA, model_type="gemma2", head_dim=32, sliding_window=32,
                        query_pre_attn_scalar=32),
                   "float32", None, "gemma3"),
}

# cases whose tokenizer_config.json names another tokenizer class than their kind's (the script
# chooses Phi-3's vocabulary by it)
TOKENIZER_CLASS = {"phi4-bf16-gpt2-tied": "GPT2Tokenizer"}


def log(msg: str) -> None:
    print(f"make_checkpoints: {msg}", file=sys.stderr, flush=True)


def make_model(case: str, out: Path, vocab_dir: Path, tok_cache: Path) -> Path:
    folder = out / "models" / case
    if (folder / "config.json").is_file():
        return folder
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    import importlib.util

    spec = importlib.util.spec_from_file_location("hf_ref_tokenizers",
                                                  Path(__file__).parent / "tokenizers.py")
    toks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toks)

    arch, cfg, dtype, shard, tok_kind = CASES[case]
    tmp = out / "models" / (case + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    n_tokens = toks.write_tokenizer(tok_kind, tmp, vocab_dir, tok_cache)
    if case in TOKENIZER_CLASS:
        tc_path = tmp / "tokenizer_config.json"
        tc = json.loads(tc_path.read_text(encoding="utf-8"))
        tc["tokenizer_class"] = TOKENIZER_CLASS[case]
        tc_path.write_text(json.dumps(tc, ensure_ascii=False, indent=2), encoding="utf-8")
    cfg = dict(cfg)
    model_type = cfg.pop("model_type")
    config = AutoConfig.for_model(model_type, vocab_size=n_tokens, architectures=[arch], **cfg)
    torch.manual_seed(len(case))
    model = AutoModelForCausalLM.from_config(config)
    model = model.to(getattr(torch, dtype))
    kw = {"max_shard_size": shard} if shard else {}
    model.save_pretrained(str(tmp), **kw)
    # the tokenizer files must survive save_pretrained (it writes only the model's)
    tmp.rename(folder)
    log(f"made {folder}")
    return folder


def convert(case: str, folder: Path, out: Path, src: Path) -> None:
    ref = out / "ref"
    ref.mkdir(parents=True, exist_ok=True)
    for t in OUTTYPES:
        target = ref / f"{case}.{t}.gguf"
        if target.is_file():
            continue
        tmp = ref / f"{case}.{t}.tmp.gguf"
        env = dict(os.environ)
        cmd = [sys.executable, str(src / "convert_hf_to_gguf.py"), str(folder),
               "--outfile", str(tmp), "--outtype", t]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            (ref / f"{case}.{t}.error.txt").write_text(r.stderr[-4000:])
            log(f"convert_hf_to_gguf.py failed on {case} --outtype {t}: {r.stderr[-600:]}")
            continue
        tmp.rename(target)
        log(f"wrote {target}")


def main() -> None:
    out, src, vocab_dir = (Path(a) for a in sys.argv[1:4])
    only = sys.argv[4:]
    tok_cache = out / "tokenizers"
    tok_cache.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        if only and case not in only:
            continue
        try:
            folder = make_model(case, out, vocab_dir, tok_cache)
        except Exception as e:  # one case that cannot be made does not stop the others
            log(f"cannot make {case}: {e!r}")
            continue
        convert(case, folder, out, src)
    (out / "cases.json").write_text(json.dumps({"cases": list(CASES), "outtypes": OUTTYPES}))


if __name__ == "__main__":
    main()
