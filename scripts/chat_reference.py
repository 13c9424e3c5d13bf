#!/usr/bin/env python3
"""The chat-template reference: every real template we have, rendered by transformers' own
`apply_chat_template(..., tokenize=False)` over conversations of many shapes.

    chat_reference.py OUT.jsonl [--gemma PATH]

Run with the reference venv's python (`../shared/tools/reference-env.sh --python` prints it).
Templates: the `tokenizer.chat_template*` keys of ../shared/corpus/**/*.gguf (special tokens from
the file's `tokenizer.ggml.*_token_id` keys), llama.cpp's models/templates/*.jinja from the sdist
(with the fixed FIXED_TOKENS below) and, when given, the Gemma 3 model's. No model is downloaded:
a `PreTrainedTokenizerFast` over a one-word vocabulary carries the template and the special
tokens, so transformers' own normalisation, variables and Jinja environment do the rendering.
`strftime_now` sees the fixed instant FIXED_NOW (the Rust test sets the same clock).

Writes one JSON line per (template, case): the template's source (`corpus`: the GGUF's path
under the corpus, `gemma`, or `llama_cpp`: the .jinja's path under llama.cpp's sources, so that
another checkout finds the same file; the absolute path beside it), the request, and `expect`:
{"text": ...} or {"error": message, "kind": "raise" | "template" | "input", "class": the
Python exception's class name (`TemplateError` for `raise_exception`, `UndefinedError`,
`TypeError`, `SecurityError`, ...)}.
"""
import argparse
import datetime as _dt
import json
import os
import struct
import sys
from pathlib import Path

import jinja2
import transformers
import transformers.utils.chat_template_utils as ctu
from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

FIXED_NOW = (2025, 3, 7, 14, 5, 9)


class _FixedDatetime(_dt.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls(*FIXED_NOW)


ctu.datetime = _FixedDatetime

# Special tokens given to the llama.cpp templates (they come without a file).
FIXED_TOKENS = {
    "bos_token": "<|bos|>",
    "eos_token": "<|eos|>",
    "unk_token": "<|unk|>",
    "sep_token": "<|sep|>",
    "pad_token": "<|pad|>",
    "cls_token": "<|cls|>",
    "mask_token": "<|mask|>",
}

TOKEN_KEYS = {
    "bos_token": "tokenizer.ggml.bos_token_id",
    "eos_token": "tokenizer.ggml.eos_token_id",
    "unk_token": "tokenizer.ggml.unknown_token_id",
    "sep_token": "tokenizer.ggml.seperator_token_id",
    "pad_token": "tokenizer.ggml.padding_token_id",
    "cls_token": "tokenizer.ggml.cls_token_id",
    "mask_token": "tokenizer.ggml.mask_token_id",
}

FIXED = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_kvs(path):
    """The metadata of a little-endian GGUF v2/v3 file: strings, scalars, and string arrays."""
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or head[:4] != b"GGUF":
            return None
        version, _n_tensors, n_kv = struct.unpack("<IQQ", head[4:24])
        if version not in (2, 3):
            return None
        data = f.read(64 << 20)
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(data):
            raise ValueError("truncated")
        b = data[pos : pos + n]
        pos += n
        return b

    def string():
        (n,) = struct.unpack("<Q", take(8))
        return take(n).decode("utf-8", "replace")

    def value(t):
        if t in FIXED:
            fmt = FIXED[t]
            return struct.unpack(fmt, take(struct.calcsize(fmt)))[0]
        if t == 8:
            return string()
        if t == 9:
            (et,) = struct.unpack("<I", take(4))
            (n,) = struct.unpack("<Q", take(8))
            return [value(et) for _ in range(n)]
        raise ValueError(f"type {t}")

    out = {}
    try:
        for _ in range(n_kv):
            key = string()
            (t,) = struct.unpack("<I", take(4))
            out[key] = value(t)
    except (ValueError, struct.error):
        return None
    return out


def gguf_templates(path, where):
    """(id, source, template text, special tokens) for each template key of one GGUF; `where`
    says how the test finds the file again (the same GGUF in another checkout)."""
    kvs = read_kvs(path)
    if not kvs:
        return []
    tokens = kvs.get("tokenizer.ggml.tokens") or []
    special = {}
    for var, key in TOKEN_KEYS.items():
        i = kvs.get(key)
        if isinstance(i, int) and 0 <= i < len(tokens):
            special[var] = tokens[i]
    out = []
    for key, v in kvs.items():
        if key == "tokenizer.chat_template" or key.startswith("tokenizer.chat_template."):
            if isinstance(v, str):
                name = None if key == "tokenizer.chat_template" else key[len("tokenizer.chat_template.") :]
                out.append((f"{path.name}:{key}", {**where, "gguf": str(path), "name": name}, v, special))
    return out


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city's name"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]


def tool_call(arguments):
    return {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}


def cases():
    """(name, messages, tools, add_generation_prompt, kwargs)."""
    sys_user = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello, who are you?"},
    ]
    multi = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And 3+3?"},
    ]
    no_sys = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Tell me a joke."},
        {"role": "assistant", "content": "Why did the chicken cross the road?"},
    ]
    tools_conv = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {"role": "assistant", "content": "", "tool_calls": [tool_call({"city": "Paris", "unit": "celsius"})]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": '{"temperature": 21}'},
        {"role": "assistant", "content": "It is 21 °C in Paris."},
    ]
    tools_str_args = [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [tool_call('{"city": "Oslo"}')]},
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "-3"},
    ]
    thinking = [
        {"role": "user", "content": "Is 17 prime?"},
        {"role": "assistant", "content": "Yes, 17 is prime.", "reasoning_content": "17 has no divisors but 1 and 17."},
        {"role": "user", "content": "And 21?"},
    ]
    non_ascii = [
        {"role": "system", "content": "Réponds en français. «Ça va?» — 日本語も OK"},
        {"role": "user", "content": "Grüße! 你好 🌍👋🏽 Привет \u00a0\u200b ñ"},
        {"role": "assistant", "content": "Bonjour ! 🇫🇷"},
        {"role": "user", "content": "tab\there\nnewline 'quote' \"dq\" \\ back"},
    ]
    empty = [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": ""},
    ]
    nulls = [
        {"role": "system", "content": "Sys", "name": None},
        {"role": "user", "content": "Hi", "tool_calls": None, "reasoning_content": None},
        {"role": "assistant", "content": "Hello", "tool_calls": None, "thinking": None},
        {"role": "user", "content": "Bye"},
    ]
    parts = [
        {"role": "user", "content": [{"type": "text", "text": "Describe "}, {"type": "text", "text": "this."}]},
    ]
    return [
        ("system_user", sys_user, None, False, {}),
        ("system_user_gen", sys_user, None, True, {}),
        ("user_only_gen", [{"role": "user", "content": "Hi"}], None, True, {}),
        ("multi_turn", multi, None, False, {}),
        ("multi_turn_gen", multi, None, True, {}),
        ("no_system_ends_assistant", no_sys, None, False, {}),
        ("tools_declared_gen", [{"role": "user", "content": "Weather in Rome?"}], TOOLS, True, {}),
        ("tool_calls", tools_conv, TOOLS, False, {}),
        ("tool_calls_string_args_gen", tools_str_args, TOOLS, True, {}),
        ("tool_calls_without_tools", tools_conv, None, False, {}),
        ("thinking_on", thinking, None, True, {"enable_thinking": True}),
        ("thinking_off", thinking, None, True, {"enable_thinking": False}),
        ("thinking_default", thinking, None, False, {}),
        ("reasoning_effort", sys_user, None, True, {"reasoning_effort": "high"}),
        ("non_ascii", non_ascii, None, True, {}),
        ("empty_content", empty, None, True, {}),
        ("null_fields", nulls, None, True, {}),
        ("content_parts", parts, None, True, {}),
        ("consecutive_users", [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], None, True, {}),
        ("assistant_first", [{"role": "assistant", "content": "I start."}], None, False, {}),
        ("custom_vars", sys_user, None, True, {"date_string": "01 Jan 2024", "custom": [1, 2.5, None, True]}),
        ("empty_conversation", [], None, True, {}),
    ]


def tokenizer_for(template, special):
    vocab = Tokenizer(models.WordLevel({"<unk-reference>": 0}, unk_token="<unk-reference>"))
    return PreTrainedTokenizerFast(tokenizer_object=vocab, chat_template=template, **special)


def render(tok, messages, tools, gen, kwargs):
    try:
        text = tok.apply_chat_template(
            json.loads(json.dumps(messages)),
            tools=json.loads(json.dumps(tools)) if tools is not None else None,
            add_generation_prompt=gen,
            tokenize=False,
            **json.loads(json.dumps(kwargs)),
        )
        return {"text": text}
    except jinja2.exceptions.TemplateError as e:
        kind = "raise" if type(e) is jinja2.exceptions.TemplateError else "template"
        return {"error": str(e), "kind": kind, "class": type(e).__name__}
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, ZeroDivisionError, RecursionError) as e:
        # errors raised by transformers before rendering ("input") or by Python under the template
        kind = "input" if "conversation" in str(e) else "template"
        return {"error": f"{type(e).__name__}: {e}", "kind": kind, "class": type(e).__name__}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--corpus", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"))
    ap.add_argument("--llama-cpp-src", default=os.environ.get("GGUFKIT_LLAMA_CPP_SRC", ""))
    ap.add_argument("--gemma", default="")
    args = ap.parse_args()

    templates = []
    # absolute paths: the tests that read the cases run from other folders
    corpus = Path(args.corpus).resolve()
    if corpus.is_dir():
        for p in sorted(corpus.rglob("*.gguf")):
            templates += gguf_templates(p, {"corpus": p.relative_to(corpus).as_posix()})
    if args.gemma and Path(args.gemma).is_file():
        templates += gguf_templates(Path(args.gemma).resolve(), {"gemma": True})
    if args.llama_cpp_src:
        for p in sorted((Path(args.llama_cpp_src).resolve() / "models" / "templates").glob("*.jinja")):
            text = p.read_text(encoding="utf-8")
            where = {"llama_cpp": f"models/templates/{p.name}", "jinja": str(p)}
            templates.append((f"llama.cpp:{p.name}", where, text, FIXED_TOKENS))

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    n = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for tid, source, text, special in templates:
            try:
                tok = tokenizer_for(text, special)
            except Exception as e:  # a template transformers cannot even hold
                print(f"{tid}: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            for name, messages, tools, gen, kwargs in cases():
                row = {
                    "template": tid,
                    "source": source,
                    "special_tokens": special,
                    "case": name,
                    "messages": messages,
                    "tools": tools,
                    "add_generation_prompt": gen,
                    "kwargs": kwargs,
                    "expect": render(tok, messages, tools, gen, kwargs),
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                n += 1
    os.replace(tmp, out)
    print(f"transformers {transformers.__version__}, jinja2 {jinja2.__version__}: {len(templates)} templates, {n} cases -> {out}")


if __name__ == "__main__":
    main()
