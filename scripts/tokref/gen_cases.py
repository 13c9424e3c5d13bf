#!/usr/bin/env python3
"""Random and adversarial text for the tokenizer's differential tests: seeded, so one seed always
gives the same cases (Python's ``random.Random`` is stable across versions for these calls).

    gen_cases.py --seed 1 --texts 400 [--special-text TEXT]... > cases.jsonl

Each text becomes four encode cases, one per (add_special, parse_special). The kinds: every
script's letters, marks and digits; runs of every kind of whitespace; emoji with ZWJ, skin tones,
flags and variation selectors; special-token text placed mid-string (``--special-text``, the
vocabulary's control and user-defined tokens); source code; English with contractions and
numbers; any Unicode scalar; and a few long inputs. Decode cases come from ``decode_cases``.
"""
from __future__ import annotations

import argparse
import json
import random
import sys

GENERATOR_VERSION = 1

SCRIPTS = {
    "latin": [(0x41, 0x5A), (0x61, 0x7A), (0xC0, 0x24F), (0x1E00, 0x1EFF)],
    "greek": [(0x370, 0x3FF), (0x1F00, 0x1FFF)],
    "cyrillic": [(0x400, 0x4FF)],
    "armenian": [(0x531, 0x58A)],
    "hebrew": [(0x591, 0x5F4)],
    "arabic": [(0x600, 0x6FF), (0x750, 0x77F)],
    "devanagari": [(0x900, 0x97F)],
    "bengali": [(0x980, 0x9FE)],
    "tamil": [(0xB82, 0xBFA)],
    "thai": [(0xE01, 0xE5B)],
    "georgian": [(0x10A0, 0x10FF)],
    "hangul": [(0xAC00, 0xD7A3), (0x1100, 0x11FF)],
    "kana": [(0x3041, 0x30FF)],
    "cjk": [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF)],
    "ethiopic": [(0x1200, 0x137C)],
    "khmer": [(0x1780, 0x17F9)],
    "tibetan": [(0xF00, 0xFDA)],
    "combining": [(0x300, 0x36F), (0x1AB0, 0x1AFF), (0x20D0, 0x20FF)],
    "digits": [(0x30, 0x39), (0x660, 0x669), (0x966, 0x96F), (0xFF10, 0xFF19), (0x1D7CE, 0x1D7FF)],
    "punct": [(0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E), (0x2010, 0x205E), (0x3000, 0x303F)],
    "symbols": [(0x2190, 0x23FF), (0x2500, 0x27BF), (0x1D400, 0x1D7CB)],
    "fullwidth": [(0xFF01, 0xFF5E)],
}

WHITESPACE = [" ", " ", " ", "\t", "\n", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u2009",
              "\u200b", "\u2028", "\u000b", "\u000c", "\u1680", "\u202f", "\u205f", "\ufeff"]

EMOJI_BASE = ["\U0001F600", "\U0001F44D", "\U0001F469", "\U0001F468", "\U0001F467", "\U0001F466",
              "\U0001F3F3", "\U0001F308", "\u2764", "\U0001F525", "\U0001F9D1", "\U0001F4BB",
              "\u263A", "\U0001F937", "\u2642", "\u2640", "\U0001F680", "\U0001F1FA"]
SKIN = ["\U0001F3FB", "\U0001F3FC", "\U0001F3FD", "\U0001F3FE", "\U0001F3FF"]
ZWJ_SEQUENCES = [
    "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466",
    "\U0001F3F3\ufe0f\u200d\U0001F308",
    "\U0001F469\U0001F3FD\u200d\U0001F4BB",
    "\u2764\ufe0f\u200d\U0001F525",
    "\U0001F9D1\u200d\U0001F91D\u200d\U0001F9D1",
    "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
    "1\ufe0f\u20e3",
]

WORDS = ("the of and to in is you that it he was for on are as with his they I at be this have "
         "from or one had by word but not what all were we when your can said there use an each "
         "which she do how their if will up other about out many then them these so some her "
         "would make like him into time has look two more write go see number no way could people "
         "HELLO World Tokenizer GGUF llama.cpp naïve café résumé Zürich Straße").split()
CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M", "'LL", "'D", "’s"]

CODE = [
    'def f(x):\n    return x ** 2  # square\n\n\nprint(f(3))\n',
    'fn main() {\n\tlet v: Vec<u32> = (0..10).map(|i| i * i).collect();\n\tprintln!("{v:?}");\n}\n',
    '#include <stdio.h>\nint main(void){printf("%d\\n",42);return 0;}\n',
    '{"key": [1, 2.5e-3, null, true], "nested": {"a": "b\\u00e9"}}',
    '<div class="x">\n  <a href="https://example.com/?q=1&amp;r=2">link</a>\n</div>',
    'SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC;',
    '    if (a != b && c <= d || !e) { x += 1; } else { y -= 0x1F; }',
    'const f = async () => { await fetch(`/api/${id}`); };\r\n',
    '$ ls -la | grep "\\.gguf$" > out.txt 2>&1',
    '\t\t\tindented\n\t\t\t\tmore\n    spaces\n',
    '    \n\n\n    \t \n  x = [ 1,2 ,3 ]  ',
]


def scalar(rng: random.Random) -> str:
    while True:
        c = rng.choice([rng.randrange(0x80), rng.randrange(0x800), rng.randrange(0x10000),
                        rng.randrange(0x110000)])
        if not 0xD800 <= c <= 0xDFFF:
            return chr(c)


def from_script(rng: random.Random, name: str, n: int) -> str:
    ranges = SCRIPTS[name]
    out = []
    for _ in range(n):
        lo, hi = rng.choice(ranges)
        out.append(chr(rng.randint(lo, hi)))
        if rng.random() < 0.15:
            out.append(" ")
    return "".join(out)


def whitespace_run(rng: random.Random) -> str:
    return "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 12)))


def emoji(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(ZWJ_SEQUENCES)
    if r < 0.55:
        return rng.choice(EMOJI_BASE) + rng.choice(SKIN)
    if r < 0.7:  # a flag: two regional indicators
        return chr(0x1F1E6 + rng.randrange(26)) + chr(0x1F1E6 + rng.randrange(26))
    if r < 0.8:
        return rng.choice(EMOJI_BASE) + "\ufe0f"
    return rng.choice(EMOJI_BASE)


def english(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 25)):
        w = rng.choice(WORDS)
        if rng.random() < 0.1:
            w += rng.choice(CONTRACTIONS)
        if rng.random() < 0.1:
            w = str(rng.randrange(10 ** rng.randint(1, 12)))
        if rng.random() < 0.1:
            w += rng.choice([".", ",", "!", "?", ":", ";", "...", "--"])
        out.append(w)
    return " ".join(out)


def piece(rng: random.Random, specials: list[str]) -> str:
    k = rng.random()
    if k < 0.22:
        return english(rng)
    if k < 0.42:
        return from_script(rng, rng.choice(list(SCRIPTS)), rng.randint(1, 20))
    if k < 0.54:
        return whitespace_run(rng)
    if k < 0.64:
        return emoji(rng)
    if k < 0.76 and specials:
        s = rng.choice(specials)
        # the special text alone, glued to a neighbour, or with spaces that lstrip/rstrip eat
        return rng.choice(["", " ", "  ", "\n"]) + s + rng.choice(["", " ", "  ", "\n"])
    if k < 0.86:
        c = rng.choice(CODE)
        i, j = sorted((rng.randrange(len(c) + 1), rng.randrange(len(c) + 1)))
        return c[i:j] if rng.random() < 0.5 else c
    return "".join(scalar(rng) for _ in range(rng.randint(1, 8)))


def text(rng: random.Random, specials: list[str], long: bool) -> str:
    n = rng.randint(200, 600) if long else rng.choice([1, 1, 2, 3, 4, 6, 10])
    s = "".join(piece(rng, specials) for _ in range(n))
    if rng.random() < 0.1:  # leading/trailing whitespace matters to several pre-tokenizers
        s = whitespace_run(rng) + s + whitespace_run(rng)
    return s


FLAGS = [(a, p) for a in (False, True) for p in (False, True)]


def encode_cases(seed: int, n_texts: int, specials: list[str]) -> list[dict]:
    rng = random.Random(seed)
    specials = sorted(set(s for s in specials if s))
    fixed = ["", " ", "  ", "\n", "\t\n", "a", "A", "0", "00", "000", "1234567", "'", "''''",
             " 's", "Hello world", " Hello world", "Hello World!", "\u00a0", "\u200d", "\x00", "\x00a\x00"]
    texts = fixed + [text(rng, specials, long=(i % 50 == 49)) for i in range(n_texts)]
    texts += [s for s in specials[:64]]
    return [{"text": t, "add_special": a, "parse_special": p} for t in texts for a, p in FLAGS]


def decode_cases(seed: int, n_seqs: int, n_vocab: int, special_ids: list[int],
                 encoded: list[list[int]]) -> list[dict]:
    """Id sequences: random over the vocabulary, heavy on special ids, and real encodings."""
    rng = random.Random(seed ^ 0x5EED)
    seqs = [[], [0]]
    for _ in range(n_seqs):
        r = rng.random()
        if r < 0.4 and encoded:
            seqs.append(list(rng.choice(encoded)))
        elif r < 0.7 and special_ids:
            seqs.append([rng.choice(special_ids) if rng.random() < 0.4 else rng.randrange(n_vocab)
                         for _ in range(rng.randint(1, 20))])
        else:
            seqs.append([rng.randrange(n_vocab) for _ in range(rng.randint(1, 40))])
    return [{"ids": s, "remove_special": r, "unparse_special": u} for s in seqs for r, u in FLAGS]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--texts", type=int, default=400)
    ap.add_argument("--special-text", action="append", default=[])
    a = ap.parse_args(argv)
    for c in encode_cases(a.seed, a.texts, a.special_text):
        sys.stdout.write(json.dumps(c, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
