"""A random-weight Llama checkpoint of a chosen size for scripts/bench_convert.sh: the tiny
reference's SentencePiece tokenizer files (llama2-spm-f16, 32000 tokens) with a config of
`hidden` width and `layers` layers, saved in bf16 by transformers.

    make_bench_checkpoint.py TOKENIZER_FOLDER OUT LAYERS [HIDDEN]

Run by the reference python (torch, transformers). An existing OUT/config.json is kept.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main() -> None:
    tok, out = Path(sys.argv[1]), Path(sys.argv[2])
    layers = int(sys.argv[3])
    hidden = int(sys.argv[4]) if len(sys.argv) > 4 else 1024
    if (out / "config.json").is_file():
        return
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for f in tok.iterdir():
        if f.name.startswith("tokenizer") or f.name in ("special_tokens_map.json",):
            shutil.copy(f, tmp / f.name)
    config = AutoConfig.for_model(
        "llama", vocab_size=32000, hidden_size=hidden, intermediate_size=hidden * 11 // 4,
        num_hidden_layers=layers, num_attention_heads=hidden // 64, num_key_value_heads=hidden // 256,
        max_position_embeddings=4096, rms_norm_eps=1e-5, architectures=["LlamaForCausalLM"])
    torch.manual_seed(layers)
    model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
    model.save_pretrained(str(tmp))
    tmp.rename(out)
    print(f"made {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
