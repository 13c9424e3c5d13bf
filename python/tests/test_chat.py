"""Chat templates from Python: ``File.apply_chat_template``, ``Tokenizer.apply_chat_template`` and
``ggufkit.apply_chat_template`` render as transformers' ``apply_chat_template(..., tokenize=False)``.
The corpus's templates are checked against transformers' own renders (the cached reference of
``scripts/chat-reference.sh``; SKIP without it); the rest are the binding's promises: Python
values converted as transformers converts them, its errors, the file kept alive."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from conftest import need, shared_or_skip

TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ eos_token }}{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
    "{% if extra is defined %}|{{ extra }}{% endif %}{% if documents %}|{{ documents | length }} docs{% endif %}"
)


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    path = tmp_path / "chat.gguf"
    with ggufkit.Writer(path) as w:
        w.add("tokenizer.ggml.model", "llama")
        w.add("tokenizer.ggml.tokens", ["<unk>", "<s>", "</s>"])
        w.add("tokenizer.ggml.scores", np.zeros(3, dtype=np.float32))
        w.add("tokenizer.ggml.token_type", np.array([2, 3, 3], dtype=np.int32))
        w.add("tokenizer.ggml.bos_token_id", 1, type="uint32")
        w.add("tokenizer.ggml.eos_token_id", 2, type="uint32")
        w.add("tokenizer.chat_template", TEMPLATE)
        w.add("tokenizer.chat_template.tool_use", "{{ tools | map(attribute='name') | join(',') }}")
        w.add("tokenizer.chat_template.strict",
              "{% if messages[0].role != 'system' %}{{ raise_exception('System first!') }}{% endif %}ok")
    return path


CONV = [{"role": "user", "content": "Hi é"}, {"role": "assistant", "content": "Yo", "tool_calls": None}]


def test_file_tokenizer_and_module_function_agree(model: Path):
    f = ggufkit.open(model)
    want = "<s><user>Hi é</s><assistant>Yo</s><assistant>"
    assert f.apply_chat_template(CONV, add_generation_prompt=True) == want
    assert ggufkit.apply_chat_template(f, CONV, add_generation_prompt=True) == want
    assert ggufkit.apply_chat_template(str(model), CONV, add_generation_prompt=True) == want
    try:
        tok = f.tokenizer
    except ggufkit.GGUFError:
        tok = None  # a tokenizer this build cannot run: the file's renders are the same
    if tok is not None:
        assert tok.apply_chat_template(CONV, add_generation_prompt=True) == want
        assert ggufkit.apply_chat_template(tok, CONV, add_generation_prompt=True) == want
    f.close()
    if tok is not None:
        # the tokenizer keeps the file alive
        assert tok.apply_chat_template(CONV).startswith("<s><user>")


def test_kwargs_documents_and_named_templates(model: Path):
    f = ggufkit.open(model)
    assert f.apply_chat_template(CONV, extra={"a": [1, None, True]}).endswith("|{'a': [1, None, True]}")
    assert f.apply_chat_template(CONV, documents=[{"title": "t", "text": "x"}]).endswith("|1 docs")
    # tools pick tool_use, as transformers does; a name picks that template
    assert f.apply_chat_template(CONV, tools=[{"name": "a"}, {"name": "b"}]) == "a,b"
    assert f.apply_chat_template([{"role": "system", "content": ""}], template="strict") == "ok"


@dataclasses.dataclass
class Message:
    role: str
    content: str


class Pydantic:
    def model_dump(self):
        return {"role": "user", "content": "from a model"}


def test_python_values_as_transformers_converts_them(model: Path):
    f = ggufkit.open(model)
    out = f.apply_chat_template(
        [Message("user", "dc"), Pydantic(), {"role": "user", "content": np.int64(7)}],
        extra=(np.bool_(False), 1.5, object()),
    )
    assert out == "<s><user>dc</s><user>from a model</s><user>7</s>|[False, 1.5, '<object>']"


def test_errors(model: Path):
    f = ggufkit.open(model)
    with pytest.raises(ggufkit.TemplateError) as e:
        f.apply_chat_template(CONV, template="strict")
    assert e.value.message == "System first!" and e.value.kind == "raised"
    assert isinstance(e.value, ValueError) and isinstance(e.value, ggufkit.GGUFError)
    with pytest.raises(ggufkit.TemplateError) as e:
        f.apply_chat_template(CONV, template="rag")
    assert e.value.kind == "missing" and "tokenizer.chat_template.rag" in str(e.value)
    with pytest.raises(ValueError, match="empty conversation"):
        f.apply_chat_template([])
    with pytest.raises(ValueError):
        f.apply_chat_template(["not a dict"])
    with pytest.raises(TypeError, match="JSON schemas"):
        f.apply_chat_template(CONV, tools=[len])
    f.close()
    with pytest.raises(ValueError, match="closed"):
        f.apply_chat_template(CONV)


def reference_cases() -> list[dict]:
    path = Path(os.environ.get("GGUFKIT_CHAT_REFERENCE") or
                Path.home() / ".cache/ggufkit/chat-reference/transformers-5.25.0/cases.jsonl")
    if not path.is_file():
        need("ref-python", f"no chat reference at {path} (scripts/chat-reference.sh renders it with transformers)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_corpus_templates_render_as_transformers():
    corpus = shared_or_skip("corpus")
    cases = [c for c in reference_cases() if "corpus" in c["source"]]
    files: dict[str, ggufkit.File] = {}
    same, diffs = 0, []
    for c in cases:
        # the reference names the file under the corpus, wherever it was made
        path = str(corpus / c["source"]["corpus"])
        if path not in files:
            files[path] = ggufkit.open(path)
        f = files[path]
        try:
            got = {"text": f.apply_chat_template(
                c["messages"], tools=c["tools"], add_generation_prompt=c["add_generation_prompt"],
                template=c["source"]["name"] or "default", **c["kwargs"])}
        except ggufkit.TemplateError as e:
            got = {"error": e.message, "kind": e.kind}
        except ValueError as e:
            got = {"error": str(e), "kind": "input"}
        want = c["expect"]
        if "text" in want:
            ok = got.get("text") == want["text"]
        elif want["kind"] == "raise":
            ok = got.get("kind") == "raised" and got["error"] == want["error"]
        else:
            ok = "error" in got
        if ok:
            same += 1
        else:
            diffs.append(f"{c['template']} [{c['case']}]: want {want!r:.200}, got {got!r:.200}")
    print(f"apply_chat_template: {same}/{len(cases)} cases identical to transformers")
    assert not diffs, "\n".join(diffs[:10])


# Synthetic templates where ggufkit still differs from Jinja2 (crates/ggufkit/tests/chat_transformers.rs
# says why): the dunder sandbox (deliberate), Python's \N{NAME} escape.
KNOWN = {"synthetic:error_dunder", "synthetic:unicode_and_escapes"}


def test_synthetic_templates_render_as_transformers(tmp_path: Path):
    """The small templates that probe one Jinja2 behaviour each, through the binding: Python's
    values (None, lists, dicts as keyword arguments) reach the template as transformers passes them."""
    cases = [c for c in reference_cases() if "synthetic" in c["source"]]
    if not cases:
        need("ref-python", "the chat reference has no synthetic templates")
    path = tmp_path / "synthetic.gguf"
    with ggufkit.Writer(path) as w:
        for c in cases:
            w.add(f"tokenizer.chat_template.{c['source']['synthetic']}", c["source"]["text"])
    f = ggufkit.open(path)
    same, diffs = 0, []
    for c in cases:
        if c["template"] in KNOWN:
            continue
        try:
            got = {"text": f.apply_chat_template(
                c["messages"], tools=c["tools"], add_generation_prompt=c["add_generation_prompt"],
                template=c["source"]["synthetic"], **c["kwargs"])}
        except ggufkit.TemplateError as e:
            got = {"error": e.message, "kind": e.kind}
        want = c["expect"]
        if "text" in want:
            ok = got.get("text") == want["text"]
        elif want["kind"] == "raise":
            ok = got.get("kind") == "raised" and got["error"] == want["error"]
        else:
            ok = "error" in got
        if ok:
            same += 1
        else:
            diffs.append(f"{c['template']}: want {want!r:.200}, got {got!r:.200}")
    print(f"apply_chat_template: {same} synthetic cases identical to transformers")
    assert not diffs, "\n".join(diffs[:10])
