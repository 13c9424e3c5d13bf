"""Tiny quantized and fused-expert Hugging Face checkpoints, and llama.cpp's convert_hf_to_gguf.py's
output for each at several --outtype: the reference of crates/ggufkit/tests/convert_fp8.rs.

    make_fp8_checkpoints.py OUT LLAMA_CPP_SRC VOCAB_DIR [CASE...]

writes OUT/models/<case>/ and OUT/ref/<case>.<outtype>.gguf (or <case>.<outtype>.error.txt when the
script refuses the case); what exists is kept (OUT is a cache keyed by this file's hash, see
make_fp8_checkpoints.sh). A case starts from a tiny random model of transformers (bf16), saved,
then its safetensors rewritten directly (transformers cannot load FP8 checkpoints on the CPU):

- FP8 weights with their scales as `quantization_config` names them: `fp8` block scales
  (`weight_scale_inv`, `weight_block_size`, blocks cut at the edges, a few NaN and subnormal
  bytes), `fp8` one scale per tensor (E5M2, bf16 scales, through Llama's q/k permutation),
  per-expert FP8 of a MoE, compressed-tensors per channel (`weight_scale` [rows, 1]), ModelOpt
  per tensor (`weight_scale`, `input_scale` dropped);
- the experts fused as transformers 5 holds them (`mlp.experts.gate_up_proj` [experts, 2 × n_ff,
  n_embd], `mlp.experts.down_proj`), in bf16 and in FP8 with 3-D block scales.
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

OUTTYPES = ["auto", "f32", "f16", "bf16", "q8_0"]

BASE = dict(hidden_size=64, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-5)
QWEN3 = dict(BASE, model_type="qwen3", head_dim=32)
LLAMA = dict(BASE, model_type="llama")
QWEN3MOE = dict(BASE, model_type="qwen3_moe", head_dim=32, num_experts=4, num_experts_per_tok=2,
                moe_intermediate_size=48)

FP8_BLOCK = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
             "weight_block_size": [32, 32]}
FP8_TENSOR = {"quant_method": "fp8", "fmt": "e5m2", "activation_scheme": "static"}
CT_CHANNEL = {"quant_method": "compressed-tensors", "format": "float-quantized",
              "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
                  "num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True,
                  "dynamic": False, "group_size": None, "block_structure": None}}},
              "ignore": ["lm_head"]}
MODELOPT = {"quant_method": "modelopt", "quant_algo": "FP8"}

# name: (class, config, tokenizer kind, quantization_config or None, how the weights are rewritten)
CASES = {
    "qwen3-fp8-block": ("Qwen3ForCausalLM", QWEN3, "qwen2", FP8_BLOCK, "fp8-block"),
    "llama-fp8-e5m2-tensor": ("LlamaForCausalLM", LLAMA, "llama-bpe", FP8_TENSOR, "fp8-tensor"),
    "qwen3moe-fp8-block": ("Qwen3MoeForCausalLM", QWEN3MOE, "qwen2", FP8_BLOCK, "fp8-block"),
    "qwen3-ct-channel": ("Qwen3ForCausalLM", QWEN3, "qwen2", CT_CHANNEL, "ct-channel"),
    "llama-modelopt-tensor": ("LlamaForCausalLM", LLAMA, "llama-bpe", MODELOPT, "modelopt"),
    "qwen3moe-fused-bf16": ("Qwen3MoeForCausalLM", QWEN3MOE, "qwen2", None, "fused"),
    "qwen3moe-fused-fp8": ("Qwen3MoeForCausalLM", QWEN3MOE, "qwen2", FP8_BLOCK, "fused-fp8-block"),
}

LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def log(msg: str) -> None:
    print(f"make_fp8_checkpoints: {msg}", file=sys.stderr, flush=True)


def is_linear(name: str, t) -> bool:
    return t.ndim >= 2 and any(f".{p}." in name or name.endswith(f".{p}") for p in LINEAR)


def quantize_blocks(w, block, dtype):
    """w (f32, 2-D or 3-D) in FP8 and the scale of each block of its last two dimensions."""
    import torch

    fmax = torch.finfo(dtype).max
    *outer, r, c = w.shape
    br, bc = block
    nr, nc = -(-r // br), -(-c // bc)
    scale = torch.empty(*outer, nr, nc, dtype=torch.float32)
    q = torch.empty_like(w, dtype=dtype)
    for i in range(nr):
        for j in range(nc):
            blk = w[..., i * br:(i + 1) * br, j * bc:(j + 1) * bc]
            amax = blk.abs().amax(dim=(-1, -2)).clamp(min=1e-12)
            s = amax / fmax
            scale[..., i, j] = s
            q[..., i * br:(i + 1) * br, j * bc:(j + 1) * bc] = (blk / s[..., None, None]).to(dtype)
    return q, scale


def fuse_experts(sd: dict, n_layers: int, n_experts: int) -> dict:
    """The per-expert tensors of `sd` fused as transformers 5 holds them."""
    import torch

    for b in range(n_layers):
        p = f"model.layers.{b}.mlp.experts"
        gate = [sd.pop(f"{p}.{x}.gate_proj.weight") for x in range(n_experts)]
        up = [sd.pop(f"{p}.{x}.up_proj.weight") for x in range(n_experts)]
        down = [sd.pop(f"{p}.{x}.down_proj.weight") for x in range(n_experts)]
        sd[f"{p}.gate_up_proj"] = torch.cat([torch.stack(gate), torch.stack(up)], dim=1).contiguous()
        sd[f"{p}.down_proj"] = torch.stack(down).contiguous()
    return sd


def rewrite(sd: dict, how: str, cfg: dict) -> dict:
    import torch

    out = {}
    if how.startswith("fused"):
        sd = fuse_experts(sd, cfg["num_hidden_layers"], cfg["num_experts"])
        if how == "fused":
            return sd
    for name, t in sd.items():
        if not (is_linear(name, t) or name.endswith(("gate_up_proj", "experts.down_proj"))):
            out[name] = t
            continue
        w = t.float()
        base = name.removesuffix(".weight")
        if how in ("fp8-block", "fused-fp8-block"):
            q, s = quantize_blocks(w, (32, 32), torch.float8_e4m3fn)
            if "layers.0.self_attn.q_proj" in name:
                # NaN, negative NaN and subnormal bytes, which the conversion must carry as torch does
                raw = q.view(torch.uint8)
                raw[0, :4] = torch.tensor([0x7F, 0xFF, 0x01, 0x86], dtype=torch.uint8)
            out[name] = q
            out[f"{name}_scale_inv"] = s
            if how == "fp8-block" and "q_proj" in name:
                out[f"{base}.activation_scale"] = torch.tensor(1.0)
        elif how == "fp8-tensor":
            s = (w.abs().amax() / torch.finfo(torch.float8_e5m2).max).clamp(min=1e-12)
            out[name] = (w / s).to(torch.float8_e5m2)
            out[f"{name}_scale_inv"] = s.to(torch.bfloat16)
        elif how == "ct-channel":
            s = (w.abs().amax(dim=1, keepdim=True) / 448.0).clamp(min=1e-12)
            out[name] = (w / s).to(torch.float8_e4m3fn)
            out[f"{name}_scale"] = s.to(torch.bfloat16)
        elif how == "modelopt":
            s = (w.abs().amax() / 448.0).clamp(min=1e-12).reshape(())
            out[name] = (w / s).to(torch.float8_e4m3fn)
            out[f"{base}.weight_scale"] = s
            out[f"{base}.input_scale"] = torch.tensor(0.5)
        else:
            raise ValueError(how)
    return out


def make_model(case: str, out: Path, vocab_dir: Path, tok_cache: Path) -> Path:
    folder = out / "models" / case
    if (folder / "config.json").is_file():
        return folder
    import importlib.util

    import torch
    from safetensors.torch import load_file, save_file
    from transformers import AutoConfig, AutoModelForCausalLM

    spec = importlib.util.spec_from_file_location("hf_ref_tokenizers", _HERE / "tokenizers.py")
    toks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toks)

    arch, cfg, tok_kind, qcfg, how = CASES[case]
    tmp = out / "models" / (case + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    n_tokens = toks.write_tokenizer(tok_kind, tmp, vocab_dir, tok_cache)
    cfg = dict(cfg)
    model_type = cfg.pop("model_type")
    config = AutoConfig.for_model(model_type, vocab_size=n_tokens, architectures=[arch], **cfg)
    torch.manual_seed(len(case))
    model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
    model.save_pretrained(str(tmp))
    weights = tmp / "model.safetensors"
    sd = rewrite(load_file(str(weights)), how, dict(cfg, num_hidden_layers=cfg["num_hidden_layers"]))
    save_file({k: v.contiguous() for k, v in sd.items()}, str(weights), metadata={"format": "pt"})
    if qcfg is not None:
        cpath = tmp / "config.json"
        c = json.loads(cpath.read_text(encoding="utf-8"))
        c["quantization_config"] = qcfg
        cpath.write_text(json.dumps(c, indent=2), encoding="utf-8")
    tmp.rename(folder)
    log(f"made {folder}")
    return folder


def convert(case: str, folder: Path, out: Path, src: Path) -> None:
    ref = out / "ref"
    ref.mkdir(parents=True, exist_ok=True)
    for t in OUTTYPES:
        target = ref / f"{case}.{t}.gguf"
        error = ref / f"{case}.{t}.error.txt"
        if target.is_file() or error.is_file():
            continue
        tmp = ref / f"{case}.{t}.tmp.gguf"
        cmd = [sys.executable, str(src / "convert_hf_to_gguf.py"), str(folder),
               "--outfile", str(tmp), "--outtype", t]
        r = subprocess.run(cmd, env=dict(os.environ), capture_output=True, text=True)
        if r.returncode != 0:
            # a refusal is a reference too: the test expects ours to refuse
            error.write_text(r.stderr[-4000:])
            log(f"convert_hf_to_gguf.py refused {case} --outtype {t}: {r.stderr[-300:]}")
            tmp.unlink(missing_ok=True)
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
