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


# Small templates that each exercise one place where Jinja2 (with transformers' settings) and
# minijinja could part: the test-only set, rendered over SYNTHETIC_CASES (their variables in
# `kwargs`). Their ids are `synthetic:NAME`; the template text travels in the row's source.
SYNTHETIC = {
    "tilde_concat": "{{ nil ~ '|' ~ t ~ '|' ~ fa ~ '|' ~ n ~ '|' ~ f ~ '|' ~ g ~ '|' ~ big ~ '|' ~ lst ~ '|' ~ d ~ '|' ~ tup }}",
    "plus_strings": "{{ s + '|' + uni }}|{{ lst + [3] }}|{{ n + f }}|{{ n + 1 }}|{{ f + 1 }}|{{ t + 1 }}",
    "join": "{{ lst|join(',') }}|{{ [1, 2, 3]|join }}|{{ d|join('-') }}|{{ s|join('.') }}|{{ nums|join(', ') }}|{{ [nil, t]|join }}",
    "join_attribute": "{{ messages|join(', ', attribute='role') }}|{{ messages|map(attribute='content')|join('/') }}",
    "percent_format": "{{ '%s-%d-%5.2f-%r' % ('a', 3, 2.5, 'x') }}|{{ 'hello %s' % s }}|{{ '%s' % (lst,) }}|{{ '%(a)s+%(b)d' % {'a': 1, 'b': 2} }}|{{ '%03d|%x|%o|%e|%g|%%' % (7, 255, 8, 12345.678, 0.00001) }}|{{ '%s and %s' % (nil, t) }}|{{ '%-5s|%5s' % ('ab', 'cd') }}",
    "format_filter": "{{ '%s=%d'|format('k', 3) }}|{{ '%.3f'|format(g) }}|{{ '{} and {}'.format(1, 'x') }}|{{ '{a}-{b}'.format(a=2, b=nil) }}|{{ '{0}{1}{0}'.format('x', 'y') }}|{{ '{:>5}|{:<4}|{:^6}|{:.2f}'.format('a', 'b', 'c', f) }}",
    "tuples_lists_print": "{{ (1, 'a') }}|{{ (1,) }}|{{ [1, (2, 3)] }}|{{ () }}|{{ tup }}|{{ lst }}|{{ [] }}|{{ [[]] }}|{{ [s, uni] }}|{{ ['it\\'s', 'say \"x\"', 'both \\' \"'] }}|{{ ['tab\\t', 'nl\\n', 'bs\\\\', '\\x01'] }}",
    "dict_print": "{{ d }}|{{ {'a': 'it\\'s', 'b': none, 'c': true, 1: 2.0} }}|{{ messages }}|{{ {} }}|{{ nested }}|{{ {'k': (1, 2)} }}",
    "string_filter": "{{ n|string }}|{{ f|string }}|{{ nil|string }}|{{ t|string }}|{{ lst|string }}|{{ d|string }}|{{ tup|string }}|{{ (n|string) + 'x' }}|{{ big|string }}|{{ undefined_x|string }}",
    "tojson": "{{ uni|tojson }}|{{ uni|tojson(ensure_ascii=True) }}|{{ d|tojson(indent=2) }}|{{ lst|tojson(separators=(',', ':')) }}|{{ d|tojson(sort_keys=true) }}|{{ \"<&>'\"|tojson }}|{{ f|tojson }}|{{ big|tojson }}|{{ tup|tojson }}|{{ nested|tojson(indent=4) }}|{{ 'a/b\\u2028'|tojson }}|{{ d|tojson(2) }}|{{ nil|tojson }}|{{ {1: 'a', true: 'b'}|tojson }}",
    "items_keys_values": "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}|{{ d.items()|list }}|{{ d.keys()|list }}|{{ d.values()|list }}|{{ d.get('k') }}|{{ d.get('zz', 'dflt') }}|{{ d.get('zz') }}|{{ d|items|list }}|{% for k in d %}{{ k }},{% endfor %}|{{ d|dictsort }}|{{ d|dictsort(reverse=true) }}",
    "loop_variables": "{% for x in lst %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.cycle('a', 'b') }};{% endfor %}|{% for x in lst if x %}{{ loop.index }}/{{ loop.length }},{% endfor %}|{% for x in [] %}no{% else %}empty{% endfor %}|{% for x in lst %}{% if loop.index > 2 %}{% break %}{% endif %}{{ x }}{% endfor %}|{% for x in lst %}{% if not x %}{% continue %}{% endif %}{{ x }}{% endfor %}",
    "loop_recursive": "{% for k, v in nested.items() recursive %}{{ loop.depth }}{{ loop.depth0 }}{{ k }}{% if v is mapping %}[{{ loop(v.items()) }}]{% endif %};{% endfor %}",
    "namespace": "{% set ns = namespace(a=1, b='x', c=none) %}{% for x in lst %}{% set ns.a = ns.a + 1 %}{% endfor %}{{ ns.a }}|{{ ns.b }}|{{ ns.c }}|{% set ns.d = [1] %}{{ ns.d }}|{{ ns.missing is defined }}",
    "namespace_print": "{% set ns = namespace(a=1, b='x') %}{{ ns }}",
    "slicing": "{{ s[1:3] }}|{{ s[::-1] }}|{{ lst[1:] }}|{{ lst[-2:] }}|{{ lst[::2] }}|{{ s[-1] }}|{{ messages[-1].content }}|{{ uni[:2] }}|{{ lst[:-1] }}|{{ s[10:20] }}|{{ tup[1:] }}|{{ lst[5:1] }}|{{ s[1:-1:2] }}",
    "startswith_endswith": "{{ s.startswith('hé') }}|{{ s.endswith(('x', 'd')) }}|{{ s.startswith(('a', 'h')) }}|{{ s.startswith('l', 2) }}|{{ uni.endswith('ü') }}|{{ ''.startswith('') }}",
    "split": "{{ s.split() }}|{{ s.split('l') }}|{{ s.split('l', 1) }}|{{ '  a  b '.split() }}|{{ s.rsplit('l', 1) }}|{{ 'a,b'.split(',')|join('+') }}|{{ 'a\\nb\\r\\nc'.splitlines() }}|{{ ''.split(',') }}|{{ 'a  b'.split(' ') }}",
    "case_methods": "{{ s.upper() }}|{{ s|upper }}|{{ s.title() }}|{{ s|title }}|{{ \"hELLO wORLD o'neil\"|capitalize }}|{{ \"hello o'neil-x 3rd\"|title }}|{{ \"hello o'neil-x 3rd\".title() }}|{{ 'ABC'|lower }}|{{ 'Straße'.upper() }}|{{ 'ǅungla'.capitalize() }}|{{ uni|upper }}|{{ 'aBc'.swapcase() }}|{{ 'hello world'.capitalize() }}",
    "numbers": "{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7 / 2 }}|{{ 6 / 2 }}|{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 2 ** 10 }}|{{ 2 ** 0.5 }}|{{ 1.0 }}|{{ f }}|{{ 1e20 }}|{{ big }}|{{ 0.1 + 0.2 }}|{{ 3 * 'ab' }}|{{ n|float }}|{{ g|int }}|{{ '12'|int + 1 }}|{{ 10 / 4 * 2 }}|{{ 1 / 3 }}|{{ f|round }}|{{ 2.567|round(2) }}|{{ 2.5|round }}|{{ -n|abs }}|{{ 7.5 // 2 }}|{{ 7.5 % 2 }}|{{ 2 ** -1 }}|{{ 1e-5 }}|{{ 123456789.0 * 1000000000 }}|{{ n * 1.0 }}|{{ -0.0 }}|{{ '3.5'|float }}|{{ 'x'|int }}|{{ 'x'|float }}|{{ 4.0|int }}",
    "escape_markup": "{{ \"<a href='x'>&</a>\"|e }}|{{ \"<a>\"|escape }}|{{ 'a'|safe + '<b>' }}|{{ '<'|safe + '<' }}|{{ '<' + '<'|safe }}|{{ 'x'|safe ~ '<' }}|{{ '<x>'|forceescape }}|{{ ('<'|e)|e }}|{{ '\"q\"'|e }}|{{ ('a'|safe + tojson_src|tojson) }}",
    "strip_replace": "{{ '  x  '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ s.replace('l', 'L') }}|{{ s|replace('l', 'L', 1) }}|{{ '  a '|trim }}|{{ s.lstrip('h') }}|{{ '\\n\\tx\\n'|trim }}|{{ 'xax'|trim('x') }}|{{ ' a '.rstrip() }}|{{ s.replace('l', 'L', 1) }}",
    "contains_length": "{{ 'é' in s }}|{{ s|length }}|{{ lst|length }}|{{ d|length }}|{{ 'k' in d }}|{{ 1 in lst }}|{{ uni|length }}|{{ 'x' not in s }}|{{ messages|length }}|{{ tup|length }}|{{ s|count }}",
    "tests": "{{ nil is none }}|{{ n is number }}|{{ s is string }}|{{ d is mapping }}|{{ lst is sequence }}|{{ s is sequence }}|{{ lst is iterable }}|{{ n is integer }}|{{ f is float }}|{{ t is boolean }}|{{ n is even }}|{{ n is odd }}|{{ n is divisibleby 7 }}|{{ undefined_x is defined }}|{{ s is lower }}|{{ d is defined }}|{{ t is true }}|{{ nil is false }}|{{ fa is false }}|{{ d is iterable }}|{{ n is string }}|{{ t is number }}|{{ f is integer }}|{{ 's' is upper }}|{{ tup is sequence }}|{{ nil is defined }}|{{ n is eq 7 }}|{{ n is gt 3 }}|{{ s is in ['x', s] }}|{{ lst is mapping }}",
    "builtin_filters": "{{ lst|first }}|{{ lst|last }}|{{ lst|reverse|list }}|{{ [3, 1, 2]|sort }}|{{ ['b', 'A', 'a']|sort }}|{{ [1, 2, 2]|unique|list }}|{{ [1, 2, 3]|sum }}|{{ [1, 5, 3]|max }}|{{ [4, 2]|min }}|{{ lst|map('string')|join(',') }}|{{ lst|select|list }}|{{ s|center(15) }}|{{ s|wordcount }}|{{ 'x'|default('d') }}|{{ undefined_x|default('d') }}|{{ nil|default('d') }}|{{ nil|default('d', true) }}|{{ 'abcdefghijklmnopqrstuvwxyz0123456789'|truncate(20) }}|{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ [1, 2, 3, 4, 5]|batch(2)|list }}|{{ [1, 2, 3]|slice(2)|list }}|{{ lst|count }}|{{ 'a b&c'|urlencode }}|{{ [[1, 2], [3]]|sum(start=[]) }}|{{ s|reverse }}|{{ s|list }}|{{ messages|map(attribute='role')|list }}|{{ messages|selectattr('role', 'equalto', 'user')|list|length }}|{{ d|dictsort|first }}|{{ ['b', 'A', 'a']|sort(case_sensitive=true) }}|{{ [3, 1]|sort(reverse=true) }}|{{ messages|groupby('role')|list }}",
    "globals": "{{ dict(a=1, b=2) }}|{{ dict(a=1).a }}|{{ range(3)|list }}|{{ range(1, 10, 3)|list }}|{{ range(3) }}|{{ lipsum is defined }}|{{ cycler is defined }}|{{ joiner is defined }}|{{ namespace is defined }}",
    "string_methods": "{{ s.count('l') }}|{{ s.find('l') }}|{{ s.find('z') }}|{{ s.index('o') }}|{{ '12'.isdigit() }}|{{ 'ab'.isalpha() }}|{{ '7'.zfill(3) }}|{{ 'a'.ljust(3, '.') }}|{{ 'a'.rjust(3) }}|{{ 'a b'.isspace() }}|{{ 'Ab'.istitle() }}|{{ s.rfind('l') }}|{{ ', '.join(['a', 'b']) }}|{{ 'a-b'.partition('-') }}|{{ 'abc'.removeprefix('a') }}|{{ 'a\\tb'.expandtabs(4) }}|{{ 'x'.center(5, '*') }}|{{ 'aXb'.lower() }}|{{ ' '.isspace() }}|{{ 'A1'.isalnum() }}|{{ 'ab'.islower() }}|{{ 'AB'.isupper() }}",
    "undefined_print": "[{{ undefined_x }}]|[{{ none }}]|[{{ nil }}]|[{{ undefined_x|default(none) }}]|[{{ d.zz }}]|[{{ d['zz'] }}]|[{{ lst[99] }}]|[{{ undefined_x|list }}]|[{{ undefined_x|length }}]|[{% for x in undefined_x %}x{% endfor %}]|[{{ undefined_x is none }}]|[{{ undefined_x == none }}]|[{{ messages[0].nope }}]",
    "comparisons": "{{ 1 == 1.0 }}|{{ 'a' < 'b' }}|{{ [1, 2] == [1, 2] }}|{{ t == 1 }}|{{ nil == none }}|{{ 'A' < 'a' }}|{{ (1, 2) == [1, 2] }}|{{ [1, 2] < [1, 3] }}|{{ d == {'k': 'v', 'n': 1, 'z': [1, 2]} }}|{{ 2 > 1.5 }}|{{ t and 'yes' }}|{{ nil or 'dflt' }}|{{ 0 or '' }}|{{ not lst }}|{{ 'a' if t else 'b' }}|[{{ 'a' if nil }}]|{{ lst and lst[0] }}|{{ 1 < n < 10 }}|{{ [] or [] }}",
    "macros_and_call": "{% macro m(a, b='x') %}<{{ a }}{{ b }}>{% endmacro %}{{ m(1) }}{{ m(1, 2) }}{{ m(b=3, a=4) }}|{% macro w() %}[{{ caller() }}]{% endmacro %}{% call w() %}inner{% endcall %}|{% set x %}block {{ n }}{% endset %}{{ x }}|{{ m }}|{{ m(1) + '!' }}",
    "set_and_scoping": "{% set x = 1 %}{% for i in lst %}{% set x = x + 1 %}{% endfor %}{{ x }}|{% set a, b = 1, 2 %}{{ a }}{{ b }}|{% set l = [1] %}{% set l = l + [2] %}{{ l }}|{% if true %}{% set y = 5 %}{% endif %}{{ y }}|{% with z = 3 %}{{ z }}{% endwith %}{{ z }}",
    "whitespace_control": "a  {%- if true %}  b  {% endif -%}  c\n{% for x in [1, 2] %}\n  {{ x }}\n{% endfor %}\n  {% if true %}\nindented\n  {% endif %}\n{{- '  d  ' -}}\n  e {# comment #}  f\n{%+ if true %}g{% endif %}\n{% raw %}{{ raw }}{% endraw %}\n",
    "unicode_and_escapes": "{{ 'é'|length }}|{{ '\\u00e9' }}|{{ '\\x41' }}|{{ '\\N{BULLET}' }}|{{ \"a\\\\b\" }}|{{ uni[0] }}|{{ uni|reverse }}|{{ '😀'|length }}|{{ emoji }}|{{ emoji|length }}|{{ emoji[0] }}",
    "string_multiply": "{{ '-' * 3 }}|{{ [0] * 3 }}|{{ 3 * [1, 2] }}|[{{ s * 0 }}]|{{ ('a' ~ 1) + '2' }}|{{ 'a' ~ 2 * 3 }}",
    "error_tilde_binds_tighter_than_plus": "{{ 'a' ~ 1 + 2 }}",
    "raise_formatted": "{{ raise_exception('Bad role: ' + messages[0].role + ' at ' ~ n) }}",
    "raise_non_string": "{{ raise_exception(lst) }}",
    "raise_in_macro_loop": "{% macro check(m) %}{% if m.role != 'assistant' %}{{ raise_exception('Only assistant, got ' ~ m.role ~ ' (' ~ m.content|length ~ ' chars)') }}{% endif %}{% endmacro %}{% for m in messages %}{{ check(m) }}{% endfor %}",
    "error_undefined_attribute": "{{ undefined_x.y }}",
    "error_undefined_in_plus": "{{ messages[0].nope + 'x' }}",
    "error_undefined_iterate_attr": "{% for x in messages[0].nope %}{{ x }}{% endfor %}ok",
    "error_str_plus_int": "{{ 'a' + 1 }}",
    "error_int_plus_str": "{{ 1 + 'a' }}",
    "error_str_plus_list": "{{ s + lst }}",
    "error_none_plus_str": "{{ nil + 'a' }}",
    "error_iterate_none": "{% for x in nil %}{{ x }}{% endfor %}",
    "error_iterate_int": "{% for x in n %}{{ x }}{% endfor %}",
    "error_length_none": "{{ nil|length }}",
    "error_unknown_filter": "{{ s|no_such_filter }}",
    "error_unknown_test": "{{ s is no_such_test }}",
    "error_unknown_function": "{{ no_such_function() }}",
    "error_list_append": "{% set l = [] %}{{ l.append(1) }}",
    "error_dict_update": "{% set x = {} %}{{ x.update({'a': 1}) }}",
    "error_divide_by_zero": "{{ 1 / 0 }}",
    "error_floordiv_by_zero": "{{ n // 0 }}",
    "error_items_of_string": "{% for k, v in s.items() %}{% endfor %}",
    "error_str_method_on_list": "{{ lst.strip() }}",
    "error_tojson_undefined": "{{ undefined_x|tojson }}",
    "error_index_string_by_string": "{{ s['a'] + 'x' }}",
    "error_syntax": "{% if %}",
    "error_unclosed": "{% for x in lst %}",
    "error_call_non_callable": "{{ s() }}",
    "error_compare_str_int": "{{ 'a' < 1 }}",
    "error_namespace_underscore": "{% set ns = namespace(_x=1) %}{{ ns._x }}",
    "error_dunder": "{{ s.__class__ }}",
    "error_int_of_list": "{{ lst|int }}",
    "ranges": "{{ range(1, 10, 3) }}|{{ range(5)|length }}|{{ range(10)[-1] }}|{{ range(2, 0, -1)|list }}|{{ range(3) is sequence }}|{{ 2 in range(3) }}|{% for i in range(2) %}{{ i }}{{ loop.last }}{% endfor %}|{{ range(0) }}|{{ range(-2) }}",
    "error_range_tojson": "{{ range(3)|tojson }}",
    "error_range_too_big": "{{ range(100001)|length }}",
    "cycler_joiner_lipsum": "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.current }}{{ c.next() }}{{ c.reset() }}{{ c.current }}|{% set j = joiner('/') %}{{ j() }}x{{ j() }}y{{ j() }}z|{{ lipsum(2, false).split('\\n\\n')|length }}|{{ lipsum(1, false)[-1] }}|{{ lipsum(1, false)[0] is upper }}|{{ lipsum(1).startswith('<p>') }}",
    "comparisons_python": "{{ 1 < 2.5 }}|{{ 'b' >= 'a' }}|{{ [1, 'a'] < [1, 'b'] }}|{{ (1, 2) <= (1, 2) }}|{{ true > 0 }}|{{ 2 > 1 > 0 }}|{{ s > 'a' }}|{{ [] < [0] }}",
    "error_compare_none_int": "{{ nil < 1 }}",
    "error_compare_list_str": "{{ lst > s }}",
    "error_compare_undefined": "{{ undefined_x >= 1 }}",
    "error_compare_dicts": "{{ d < d }}",
    "error_iterate_none_item": "{% for x in lst[2] %}{{ x }}{% endfor %}",
    "error_namespace_set_underscore": "{% set ns = namespace(a=1) %}{% set ns._y = 2 %}{{ ns.a }}",
    "namespace_print_order": "{% set ns = namespace(b=1, a=2) %}{% set ns.c = 3 %}{{ ns }}",
    "macro_caller_print": "{% macro w() %}{{ caller }}|{{ caller() }}{% endmacro %}{% call w() %}x{% endcall %}|{% macro m2(a) %}{% endmacro %}{{ m2 }}",
    "more_string_methods": "{{ 'Ab Cd'.istitle() }}|{{ 'Ab cd'.istitle() }}|{{ 'AB'.istitle() }}|{{ '1'.istitle() }}|{{ 'Straße'.casefold() }}|{{ s.find('l', 3) }}|{{ s.find('', 20) }}|{{ s.count('l', 3) }}|{{ s.count('') }}|{{ s.rfind('l', 0, -3) }}|{{ s.rindex('o') }}|{{ 'a\\rb\\r\\nc'.splitlines() }}|{{ 'a\\r\\nb'.splitlines(true) }}|{{ 'x_1'.isidentifier() }}|{{ '1x'.isidentifier() }}|{{ 'a\\tb'.isprintable() }}|{{ '{a}-{b}'.format_map({'a': 1, 'b': 'z'}) }}|{{ '-'.join(['a', 'b']) }}|{{ s.index('l', 3) }}|{{ 'AbC'.swapcase() }}",
    "error_join_non_strings": "{{ ', '.join([1, 2]) }}",
    "urlencode_groupby": "{{ {'a b': 'c/d', 'n': nil}|urlencode }}|{{ [('k', 1), ('x y', 'é')]|urlencode }}|{{ 'a~b/c d'|urlencode }}|{{ 3|urlencode }}|{% for g in messages|groupby('role') %}{{ g.grouper }}:{{ g.list|length }};{% endfor %}|{{ (messages|groupby('role'))[0][0] }}|{{ s|wordcount }}|{{ 'a_b c-d 3'|wordcount }}",
    "error_unpack": "{% set a, b = [1, 2, 3] %}{{ a }}",
}

SYNTHETIC_VARS = {
    "n": 7,
    "f": 1.0,
    "g": 2.5,
    "big": 1e20,
    "t": True,
    "fa": False,
    "nil": None,
    "s": "héllo world",
    "uni": "日本語 ü",
    "emoji": "👋🏽🇫🇷",
    "lst": [1, "a", None, True, 2.5],
    "nums": [1, 2, 3],
    "tup": [1, "b"],
    "d": {"k": "v", "n": 1, "z": [1, 2]},
    "nested": {"a": {"b": {"c": 1}}, "x": 2},
    "tojson_src": {"q": "say \"hi\" <b> & 'x'"},
}

SYNTHETIC_CASES = [
    (
        "synthetic",
        [
            {"role": "system", "content": "Be <brief> & \"exact\"."},
            {"role": "user", "content": "Hi 'there'"},
        ],
        TOOLS,
        True,
        SYNTHETIC_VARS,
    ),
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
    except Exception as e:
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
    real = len(templates)
    for name, text in SYNTHETIC.items():
        templates.append((f"synthetic:{name}", {"synthetic": name, "text": text}, text, FIXED_TOKENS))

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    n = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for i, (tid, source, text, special) in enumerate(templates):
            try:
                tok = tokenizer_for(text, special)
            except Exception as e:  # a template transformers cannot even hold
                print(f"{tid}: {type(e).__name__}: {e}", file=sys.stderr)
                continue
            for name, messages, tools, gen, kwargs in cases() if i < real else SYNTHETIC_CASES:
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
    print(f"transformers {transformers.__version__}, jinja2 {jinja2.__version__}: {real} real and {len(templates) - real} synthetic templates, {n} cases -> {out}")


if __name__ == "__main__":
    main()
