#!/usr/bin/env python3
"""llama.cpp's own tokenizer, called through the prebuilt libllama that node-llama-cpp ships.

node-llama-cpp's JavaScript ``tokenize`` always passes add_special=false and its ``detokenize``
remove_special=false, so this binds ``llama_tokenize`` and ``llama_detokenize`` themselves with
ctypes (no compiler): the answers are llama.cpp's for every combination of the special flags.

    llama_ref.py VOCAB.gguf [CASES.jsonl]      # cases on stdin when no file is named

Each input line is an encode case ``{"text", "add_special"=true, "parse_special"=false}`` or a
decode case ``{"ids", "remove_special"=false, "unparse_special"=false}``; each output line, in
order, is the case with llama.cpp's answer added: ``"expect_ids"`` for an encode case,
``"expect_hex"`` (the bytes, since a piece may end inside a UTF-8 sequence) for a decode case.

The library is found from ``--node-modules DIR`` or ``$GGUFKIT_NODE_MODULES`` (the
``node_modules=`` line of ``reference-env.sh --node``).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

NODE_LLAMA_CPP_VERSION = "3.21.1"
DEFAULT_NODE_MODULES = Path.home() / ".cache/ggufkit-reference/node/node_modules"

# enum llama_token_attr (llama.h)
ATTR_UNKNOWN = 1 << 0
ATTR_CONTROL = 1 << 3
ATTR_USER_DEFINED = 1 << 4


class ModelParams(ctypes.Structure):
    """struct llama_model_params of the llama.cpp that node-llama-cpp 3.21.1 bundles."""

    _fields_ = [
        ("devices", ctypes.c_void_p),
        ("tensor_buft_overrides", ctypes.c_void_p),
        ("n_gpu_layers", ctypes.c_int32),
        ("split_mode", ctypes.c_int32),
        ("load_mode", ctypes.c_int32),
        ("lazy_mode", ctypes.c_int32),
        ("main_gpu", ctypes.c_int32),
        ("tensor_split", ctypes.c_void_p),
        ("progress_callback", ctypes.c_void_p),
        ("progress_callback_user_data", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("vocab_only", ctypes.c_bool),
        ("check_tensors", ctypes.c_bool),
        ("use_extra_bufts", ctypes.c_bool),
        ("no_host", ctypes.c_bool),
        ("no_alloc", ctypes.c_bool),
        ("load_mtp", ctypes.c_bool),
        # room for fields a newer build may add at the end (they keep their defaults)
        ("_tail", ctypes.c_uint8 * 64),
    ]


def library_dir(node_modules: Path) -> Path:
    return node_modules / "@node-llama-cpp/linux-x64/bins/linux-x64"


def installed_version(node_modules: Path) -> str:
    pkg = node_modules / "node-llama-cpp/package.json"
    return json.loads(pkg.read_text())["version"]


_LOG_CB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
_quiet = _LOG_CB(lambda level, text, user: None)


class Llama:
    """The prebuilt libllama, loaded once per process."""

    def __init__(self, node_modules: Path):
        d = library_dir(node_modules)
        libs = sorted(d.glob("libllama*.so*"))
        if not libs:
            raise FileNotFoundError(f"no libllama*.so in {d}")
        # libllama finds libggml beside it through its RUNPATH ($ORIGIN)
        lib = ctypes.CDLL(str(libs[0]))
        self.lib = lib
        lib.llama_log_set.argtypes = [_LOG_CB, ctypes.c_void_p]
        lib.llama_log_set(_quiet, None)
        lib.llama_backend_init.argtypes = []
        lib.llama_backend_init()
        lib.llama_model_default_params.restype = ModelParams
        lib.llama_model_load_from_file.argtypes = [ctypes.c_char_p, ModelParams]
        lib.llama_model_load_from_file.restype = ctypes.c_void_p
        lib.llama_model_get_vocab.argtypes = [ctypes.c_void_p]
        lib.llama_model_get_vocab.restype = ctypes.c_void_p
        lib.llama_model_free.argtypes = [ctypes.c_void_p]
        lib.llama_vocab_n_tokens.argtypes = [ctypes.c_void_p]
        lib.llama_vocab_n_tokens.restype = ctypes.c_int32
        lib.llama_vocab_get_text.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        lib.llama_vocab_get_text.restype = ctypes.c_char_p
        lib.llama_vocab_get_attr.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        lib.llama_vocab_get_attr.restype = ctypes.c_int32
        lib.llama_tokenize.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32,
            ctypes.POINTER(ctypes.c_int32), ctypes.c_int32, ctypes.c_bool, ctypes.c_bool,
        ]
        lib.llama_tokenize.restype = ctypes.c_int32
        lib.llama_detokenize.argtypes = [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int32,
            ctypes.c_char_p, ctypes.c_int32, ctypes.c_bool, ctypes.c_bool,
        ]
        lib.llama_detokenize.restype = ctypes.c_int32

    def load_vocab(self, path: Path) -> "Vocab":
        p = self.lib.llama_model_default_params()
        # the defaults llama.cpp documents: a layout that differs from ModelParams shows here
        if (p.n_gpu_layers, p.vocab_only, p.check_tensors, p.use_extra_bufts) != (-1, False, False, True):
            raise RuntimeError("libllama's llama_model_params does not have the expected layout")
        p.vocab_only = True
        model = self.lib.llama_model_load_from_file(str(path).encode(), p)
        if not model:
            raise RuntimeError(f"llama.cpp refused to load the vocabulary of {path}")
        return Vocab(self.lib, model)


class Vocab:
    def __init__(self, lib, model):
        self.lib = lib
        self.model = model
        self.vocab = lib.llama_model_get_vocab(model)
        self.n_tokens = lib.llama_vocab_n_tokens(self.vocab)

    def close(self):
        if self.model:
            self.lib.llama_model_free(self.model)
            self.model = None

    def text(self, token: int) -> bytes:
        return self.lib.llama_vocab_get_text(self.vocab, token) or b""

    def attr(self, token: int) -> int:
        return self.lib.llama_vocab_get_attr(self.vocab, token)

    def special_texts(self) -> list[str]:
        """The text of every control and user-defined token (those parse_special matches)."""
        out = []
        for t in range(self.n_tokens):
            if self.attr(t) & (ATTR_CONTROL | ATTR_USER_DEFINED | ATTR_UNKNOWN):
                s = self.text(t)
                try:
                    out.append(s.decode("utf-8"))
                except UnicodeDecodeError:
                    pass
        return out

    def tokenize(self, text: str, add_special: bool, parse_special: bool) -> list[int]:
        data = text.encode("utf-8")
        cap = len(data) + 8
        while True:
            buf = (ctypes.c_int32 * cap)()
            n = self.lib.llama_tokenize(self.vocab, data, len(data), buf, cap, add_special, parse_special)
            if n >= 0:
                return list(buf[:n])
            if -n <= cap:  # INT32_MIN: more tokens than an int32 counts
                raise RuntimeError("llama_tokenize failed")
            cap = -n

    def detokenize(self, ids: list[int], remove_special: bool, unparse_special: bool) -> bytes:
        arr = (ctypes.c_int32 * max(len(ids), 1))(*ids)
        cap = 16 * len(ids) + 16
        while True:
            buf = ctypes.create_string_buffer(cap)
            n = self.lib.llama_detokenize(self.vocab, arr, len(ids), buf, cap, remove_special, unparse_special)
            if n >= 0:
                return buf.raw[:n]
            if -n <= cap:
                raise RuntimeError("llama_detokenize failed")
            cap = -n


def answer(vocab: Vocab, case: dict) -> dict:
    """The case with llama.cpp's answer added (see the module doc)."""
    out = dict(case)
    if "text" in case:
        out["expect_ids"] = vocab.tokenize(
            case["text"], case.get("add_special", True), case.get("parse_special", False))
    else:
        ids = case["ids"]
        bad = [i for i in ids if not 0 <= i < vocab.n_tokens]
        if bad:  # llama.cpp indexes its vocabulary unchecked: no reference answer exists
            raise ValueError(f"id {bad[0]} is out of range (vocabulary of {vocab.n_tokens})")
        out["expect_hex"] = vocab.detokenize(
            ids, case.get("remove_special", False), case.get("unparse_special", False)).hex()
    return out


def node_modules_from(arg: str | None) -> Path:
    return Path(arg or os.environ.get("GGUFKIT_NODE_MODULES") or DEFAULT_NODE_MODULES)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vocab", type=Path)
    ap.add_argument("cases", nargs="?", type=Path)
    ap.add_argument("--node-modules")
    a = ap.parse_args(argv)
    vocab = Llama(node_modules_from(a.node_modules)).load_vocab(a.vocab)
    src = a.cases.open(encoding="utf-8") if a.cases else sys.stdin
    w = sys.stdout
    for line in src:
        if line.strip():
            w.write(json.dumps(answer(vocab, json.loads(line)), ensure_ascii=False) + "\n")
    vocab.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
