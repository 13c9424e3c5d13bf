"""A Llama checkpoint of a chosen size for convert's memory and speed measurements
(BENCHMARKS.md, crates/gguf-cli/tests/convert_memory.rs): random bf16 weights, hidden size 768,
the Llama 2 SentencePiece tokenizer of an existing generated checkpoint (make_checkpoints.py).

    make_big_checkpoint.py OUT_DIR N_LAYERS TOKENIZER_DIR

Run by the reference python (torch, transformers). Two layers make ~126 MB, ten ~240 MB; the
largest tensor is the embedding (32000 x 768, 49 MB in bf16) whatever the depth.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main() -> None:
    out, layers, tok = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model("llama", vocab_size=32000, hidden_size=768,
                                  intermediate_size=2048, num_hidden_layers=layers,
                                  num_attention_heads=12, num_key_value_heads=4,
                                  max_position_embeddings=2048, rms_norm_eps=1e-5,
                                  architectures=["LlamaForCausalLM"])
    torch.manual_seed(layers)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(str(tmp))
    for name in ("tokenizer.model", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json"):
        if (tok / name).is_file():
            shutil.copy(tok / name, tmp / name)
    tmp.rename(out)


if __name__ == "__main__":
    main()
