"""The static page (web/) in a real browser: Debian's Chromium, headless, driven by Playwright for
Python (no browser download: executable_path is the system's chromium).

The page is opened over file:// and over a local static server (http.server). For each: a corpus
model and the Gemma 3 model are opened through the file picker and what the page shows is checked
against the `gguf` command's JSON (info, dump, tensors, validate, tokenize, chat); a key is edited,
the download saved and validated by the CLI (its bytes equal `gguf meta set`'s). Screenshots go
to $GGUFKIT_WEB_ARTIFACTS (default /tmp/ggufkit-web-artifacts), printed at the end.

Run by scripts/test_web.sh (which builds the page and the venv); environment: GGUFKIT_WEB_DIR (the
built page), GGUF_BIN (the CLI), GGUFKIT_CHROMIUM (default /usr/bin/chromium). Skips print SKIPPED
with the reason, append to $GGUFKIT_SKIP_LOG, and fail when GGUFKIT_REQUIRE names `web` or `all`.
"""

import base64
import functools
import http.server
import json
import os
import pathlib
import socketserver
import subprocess
import tempfile
import threading
import time

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
TINY = CORPUS / "models" / "llama-2-tiny-random.gguf"
BAD_UTF8 = CORPUS / "synthetic" / "kv_non_utf8_string.gguf"
GEMMA = pathlib.Path(os.environ.get("GGUFKIT_GEMMA", pathlib.Path.home() / ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf"))
CHROMIUM = os.environ.get("GGUFKIT_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = pathlib.Path(os.environ.get("GGUFKIT_WEB_ARTIFACTS", "/tmp/ggufkit-web-artifacts"))
SENTENCE = "Hello world! GGUF files, tokenized in the browser: ünïcödé 123 <b>ok</b>"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
FIGURES = []


def need(what, ok, why):
    """Skip (loudly, logged) unless `ok`; a failure when GGUFKIT_REQUIRE names `what` or all."""
    if ok:
        return
    log = os.environ.get("GGUFKIT_SKIP_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{what}\ttests/web\t{why}\n")
    print(f"SKIPPED [{what}] {why}")
    required = {r.strip() for r in os.environ.get("GGUFKIT_REQUIRE", "").split(",")}
    if what in required or "all" in required:
        pytest.fail(f"GGUFKIT_REQUIRE names {what}, but: {why}")
    pytest.skip(f"[{what}] {why}")


def gguf(*args, check=True):
    exe = os.environ.get("GGUF_BIN", str(REPO / "target" / "debug" / "gguf"))
    return subprocess.run([exe, *map(str, args)], capture_output=True, check=check)


def gguf_json(*args):
    return json.loads(gguf(*args, check=False).stdout)


@pytest.fixture(scope="session")
def site():
    d = os.environ.get("GGUFKIT_WEB_DIR")
    need("web", d and (pathlib.Path(d) / "ggufkit-bundle.js").exists(), "the page is not built (GGUFKIT_WEB_DIR: run scripts/test_web.sh)")
    return pathlib.Path(d)


@pytest.fixture(scope="session")
def server(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The page, and the corpus under /corpus/ (for URLs; this server ignores Range, as some do:
    the package then reads the one plain response only as far as the header goes). CORS headers
    let the page opened from file:// fetch it too."""

    def translate_path(self, path):
        if path.startswith("/corpus/"):
            return str(CORPUS / path[len("/corpus/"):].split("?")[0])
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "Range, If-Match")
        self.send_header("Access-Control-Expose-Headers", "Content-Range, Content-Length, ETag")
        super().end_headers()

    def do_OPTIONS(self):
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def browser():
    need("web", os.access(CHROMIUM, os.X_OK), f"no chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need("web", False, "playwright (Python) is not installed (scripts/test_web.sh makes its venv)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="ggufkit-web-profile-")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS, accept_downloads=True,
            viewport={"width": 1280, "height": 900},
        )
        yield ctx
        ctx.close()
    print(f"\nweb test artefacts (screenshots, downloads): {ARTIFACTS}")
    for line in FIGURES:
        print(line)


@pytest.fixture(params=["file", "http"])
def page_url(request, site):
    if request.param == "file":
        return (site / "index.html").as_uri(), "file"
    return request.getfixturevalue("server") + "/index.html", "http"


def open_page(browser, url):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("document.body.dataset.ready !== undefined", timeout=60000)
    assert page.evaluate("document.body.dataset.ready") == "true", (page.inner_text("#status"), errors)
    return page, errors


def open_file(page, path):
    page.evaluate("delete document.body.dataset.openMs")
    page.set_input_files("#file-input", str(path))
    page.wait_for_function("document.body.dataset.openMs !== undefined || document.querySelector('#status.error')", timeout=120000)
    assert not page.evaluate("!!document.querySelector('#status.error')"), page.inner_text("#status")
    return float(page.evaluate("document.body.dataset.openMs"))


def shown(page, field):
    return page.inner_text(f'#summary dd[data-field="{field}"]')


def tab(page, name):
    page.click(f"#tab-{name}")
    assert page.get_attribute(f"#tab-{name}", "aria-selected") == "true"


def js(value):
    """JSON.stringify's text of a value."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def without_file(obj):
    return {k: v for k, v in obj.items() if k != "file"}


def check_model(page, path, kind, label):
    info = gguf_json("info", "--json", path)
    page_summary = page.evaluate("ggufkitPage.state.file.summary()")
    assert without_file(page_summary) == without_file(info)
    assert page_summary["file"] == path.name
    # what the summary tab shows
    assert shown(page, "version") == str(info["version"])
    assert shown(page, "architecture") == str(info["architecture"])
    assert shown(page, "name") == str(info["name"])
    assert shown(page, "kv_count") == str(info["kv_count"])
    assert shown(page, "tensor_count") == str(info["tensor_count"])
    assert shown(page, "tensor_data_offset") == f"{info['tensor_data_offset']:,}"
    assert shown(page, "valid") == ("yes" if info["valid"] else "no")
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-summary.png"), full_page=True)

    # metadata: one row a key, the token array in a virtualised list
    dump = gguf_json("dump", "--json", path)
    tab(page, "metadata")
    keys = page.eval_on_selector_all("#metadata tbody tr", "rows => rows.map(r => r.dataset.key)")
    assert keys == [kv["key"] for kv in dump["metadata"]]
    # every value shown in full (scalars, short arrays) reads back as the dump's: the tab is
    # drawn from metadata()'s fast path, not from the dump's JSON
    cells = page.eval_on_selector_all("#metadata tbody tr", "rows => rows.map(r => [r.cells[1].textContent, r.cells[2].textContent, !!r.querySelector('button')])")
    for kv, (shown_type, text, long) in zip(dump["metadata"], cells):
        assert shown_type == (f"array[{kv['element_type']}]" if kv["type"] == "array" else kv["type"]), kv["key"]
        if not long:
            assert json.loads(text) == kv["value"], (kv["key"], text)
    assert page.evaluate("ggufkitPage.state.meta.length") == len(dump["metadata"])
    tokens = next(kv["value"] for kv in dump["metadata"] if kv["key"] == "tokenizer.ggml.tokens")
    page.click('#metadata tr[data-key="tokenizer.ggml.tokens"] button')
    rows = page.locator("#array-list .vrow")
    assert 0 < rows.count() < 200, "the array list renders only the rows in view"
    assert rows.first.text_content() == f"0{js(tokens[0])}"
    last = len(tokens) - 1
    page.fill("#array-goto", str(last))
    page.dispatch_event("#array-goto", "change")
    page.wait_for_timeout(50)
    texts = page.eval_on_selector_all("#array-list .vrow", "rs => rs.map(r => r.textContent)")
    assert f"{last}{js(tokens[last])}" in texts, texts[-3:]
    assert page.locator("#array-list .vrow").count() < 200
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-metadata.png"))

    # tensors: every row, sorted by size then filtered
    tensors = gguf_json("tensors", "--json", path)["tensors"]
    tab(page, "tensors")
    assert page.locator("#tensors tbody tr").count() == min(len(tensors), 2000)
    page.click('#tensors th button[data-key="size"]')
    first = page.inner_text("#tensors tbody tr:first-child td:nth-child(5)")
    assert first == f"{min(t['size'] for t in tensors):,}"
    page.fill("#tensor-filter", "token_embd")
    names = page.eval_on_selector_all("#tensors tbody tr td:first-child", "cs => cs.map(c => c.textContent)")
    assert names == [t["name"] for t in tensors if "token_embd" in t["name"]]
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-tensors.png"))

    # the layout strip
    tab(page, "layout")
    page.wait_for_selector("#strip .region")
    assert page.locator("#strip .region.data").count() >= 1
    assert page.locator("#strip .region.kv").count() >= 1
    regions = page.eval_on_selector_all("#regions tbody tr td:first-child", "cs => cs.map(c => c.textContent)")
    at_zero = min(tensors, key=lambda t: (t["offset"], t["size"]))["name"] if tensors else None
    if at_zero:
        assert any(r.startswith(f"tensor: {at_zero}") for r in regions), regions[:12]
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-layout.png"))

    # validation and audit
    tab(page, "findings")
    validate = gguf_json("validate", "--json", path)
    assert without_file(page.evaluate("ggufkitPage.state.file.validate()")) == without_file(validate)
    audit = gguf_json("audit", "--json", path)
    assert without_file(page.evaluate("ggufkitPage.state.file.audit()")) == without_file(audit)
    assert page.locator("#audit li").count() == max(1, len(audit["findings"]))

    # tokenizer playground: the ids of `gguf tokenize --ids`
    tab(page, "tokenizer")
    page.fill("#tok-text", SENTENCE)
    want = gguf("tokenize", "--ids", path, SENTENCE).stdout.decode().split()
    assert page.text_content("#tok-ids").split() == want
    assert page.locator("#tok-pieces .piece").count() == len(want)
    page.uncheck("#tok-add-special")
    want = gguf("tokenize", "--ids", "--no-add-special", path, SENTENCE).stdout.decode().split()
    assert page.text_content("#tok-ids").split() == want
    page.check("#tok-add-special")
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-tokenizer.png"))

    # chat template preview: `gguf chat --add-generation-prompt`
    tab(page, "chat")
    messages = [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi."}, {"role": "user", "content": "Bye?"}]
    has_template = any(kv["key"].startswith("tokenizer.chat_template") for kv in dump["metadata"])
    page.fill("#chat-messages", json.dumps(messages))
    if has_template:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(messages, f)
        want = gguf("chat", "--messages", f.name, "--add-generation-prompt", path).stdout.decode()
        os.unlink(f.name)
        assert page.inner_text("#chat-out") == want.rstrip("\n") or page.evaluate("document.getElementById('chat-out').textContent") in (want, want.rstrip("\n"))
    else:
        assert "no chat template" in page.inner_text("#chat-out")
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-chat.png"))

    # edit a key and download: the CLI validates the download, which is `gguf meta set`'s bytes
    tab(page, "edit")
    new_name = f"edited in the browser ({kind})"
    page.fill("#edit-key-0", "general.name")
    page.fill("#edit-value-0", new_name)
    with page.expect_download() as dl:
        page.click("#edit-go")
    saved = ARTIFACTS / f"{label}-{kind}.edited.gguf"
    dl.value.save_as(str(saved))
    assert gguf("validate", saved, check=False).returncode == 0
    assert gguf_json("info", "--json", saved)["name"] == new_name
    ref = ARTIFACTS / f"{label}-{kind}.meta-set.gguf"
    ref.unlink(missing_ok=True)
    gguf("meta", "set", "-o", ref, path, "general.name", new_name)
    assert saved.read_bytes() == ref.read_bytes()
    page.screenshot(path=str(ARTIFACTS / f"{label}-{kind}-edit.png"))
    saved.unlink()
    ref.unlink()


def test_corpus_model(browser, page_url):
    need("shared", TINY.exists(), f"{TINY} is absent (../shared/corpus)")
    url, kind = page_url
    page, errors = open_page(browser, url)
    open_file(page, TINY)
    check_model(page, TINY, kind, "tiny")
    assert not errors, errors
    page.close()


def test_gemma(browser, page_url):
    need("gemma", GEMMA.exists(), f"{GEMMA} is absent (../shared/corpus/get-gemma3-270m.sh)")
    url, kind = page_url
    page, errors = open_page(browser, url)
    ms = [open_file(page, GEMMA) for _ in range(3)]
    FIGURES.append(f"FIGURE web open Gemma 3 270M header ({kind}): {min(ms):.1f} ms best of 3 ({', '.join(f'{m:.1f}' for m in ms)}); "
                   f"every tab rendered {float(page.evaluate('document.body.dataset.renderMs')):.0f} ms more")
    check_model(page, GEMMA, kind, "gemma")
    assert not errors, errors
    page.close()


def test_findings_with_offsets(browser, page_url):
    need("shared", BAD_UTF8.exists(), f"{BAD_UTF8} is absent (../shared/corpus)")
    url, kind = page_url
    page, _ = open_page(browser, url)
    open_file(page, BAD_UTF8)
    tab(page, "findings")
    validate = gguf_json("validate", "--json", BAD_UTF8)
    items = page.eval_on_selector_all("#validation li", "ls => ls.map(l => l.textContent)")
    assert len(items) == len(validate["errors"]) + len(validate["warnings"]) > 0
    for item, f in zip(items, validate["errors"]):
        assert f"at byte {f['offset']:,}" in item and f["rule"] in item and f["message"] in item
    assert page.inner_text("#verdict").startswith("Not valid")
    page.screenshot(path=str(ARTIFACTS / f"findings-{kind}.png"))
    page.close()


def test_bad_file_shows_the_error(browser, page_url, tmp_path):
    url, kind = page_url
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 16)
    page, errors = open_page(browser, url)
    page.set_input_files("#file-input", str(bad))
    page.wait_for_selector("#status.error")
    text = page.inner_text("#status")
    assert "bad.gguf" in text and "rule" in text
    assert not errors, errors
    page.close()


def test_sparse_20gb_header(browser, page_url, tmp_path):
    """A 20 GB sparse file with Gemma's header at its start: only the header is read."""
    need("gemma", GEMMA.exists(), f"{GEMMA} is absent")
    url, kind = page_url
    info = gguf_json("info", "--json", GEMMA)
    big = tmp_path / "sparse-20g.gguf"
    with open(GEMMA, "rb") as src, open(big, "wb") as dst:
        dst.write(src.read(info["tensor_data_offset"]))
    os.truncate(big, 20 * 1024**3)
    page, errors = open_page(browser, url)
    ms = [open_file(page, big) for _ in range(3)]
    FIGURES.append(f"FIGURE web open a 20 GiB sparse file's header ({kind}): {min(ms):.1f} ms best of 3 ({', '.join(f'{m:.1f}' for m in ms)})")
    assert page.evaluate("ggufkitPage.state.file.fileSize") == 20 * 1024**3
    assert shown(page, "tensor_count") == str(info["tensor_count"])
    # an edit of it is a Blob of the new header and a slice of the file: milliseconds, no copy
    edit = page.evaluate("""() => {
        const t0 = performance.now();
        const blob = ggufkitPage.state.file.edit({ set: { "general.name": "twenty gigabytes" } });
        return { ms: performance.now() - t0, size: blob.size };
    }""")
    FIGURES.append(f"FIGURE web edit a key of the 20 GiB file ({kind}): {edit['ms']:.1f} ms (a Blob of {edit['size']:,} bytes)")
    # as `gguf meta set`: the tensor data is kept, the zeros after it (not part of the GGUF) are not
    assert info["tensor_data_size"] < edit["size"] < info["file_size"] + 4096
    assert not errors, errors
    page.close()
    big.unlink()


def test_url(browser, page_url, server):
    """A URL typed into the page: its header over HTTP, the summary as `gguf info --json`'s; an
    edit downloaded with the data fetched again, `gguf meta set`'s bytes."""
    need("shared", TINY.exists(), f"{TINY} is absent (../shared/corpus)")
    url, kind = page_url
    page, errors = open_page(browser, url)
    remote = f"{server}/corpus/models/{TINY.name}"
    page.evaluate("delete document.body.dataset.openMs")
    page.fill("#url-input", remote)
    page.click("#url-open")
    page.wait_for_function("document.body.dataset.openMs !== undefined || document.querySelector('#status.error')", timeout=60000)
    assert not page.evaluate("!!document.querySelector('#status.error')"), page.inner_text("#status")
    info = gguf_json("info", "--json", TINY)
    got = page.evaluate("ggufkitPage.state.file.summary()")
    got.pop("remote", None)
    assert without_file(got) == without_file(info)
    assert got["file"] == remote
    assert shown(page, "tensor_count") == str(info["tensor_count"])
    page.screenshot(path=str(ARTIFACTS / f"url-{kind}.png"), full_page=True)
    # an edit of the URL's file: the new header and the tensor data fetched again (this server
    # ignores Range: one plain response read past the old header), `gguf meta set`'s bytes
    tab(page, "edit")
    new_name = f"edited over HTTP ({kind})"
    page.fill("#edit-key-0", "general.name")
    page.fill("#edit-value-0", new_name)
    with page.expect_download() as dl:
        page.click("#edit-go")
    saved = ARTIFACTS / f"url-{kind}.edited.gguf"
    dl.value.save_as(str(saved))
    ref = ARTIFACTS / f"url-{kind}.meta-set.gguf"
    ref.unlink(missing_ok=True)
    gguf("meta", "set", "-o", ref, TINY, "general.name", new_name)
    assert saved.read_bytes() == ref.read_bytes()
    assert gguf("validate", saved, check=False).returncode == 0
    saved.unlink()
    ref.unlink()
    assert not errors, errors
    page.close()


def test_drop_keyboard_and_dark(browser, page_url):
    """A file dropped on the page opens; the tabs move with the keyboard; dark follows the system."""
    need("shared", TINY.exists(), f"{TINY} is absent (../shared/corpus)")
    url, kind = page_url
    page, errors = open_page(browser, url)
    data = base64.b64encode(TINY.read_bytes()).decode()
    page.evaluate(
        """([name, b64]) => {
            const bin = atob(b64);
            const bytes = new Uint8Array(bin.length);
            for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], name));
            document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        }""",
        [TINY.name, data],
    )
    page.wait_for_function("document.body.dataset.openMs !== undefined || document.querySelector('#status.error')", timeout=60000)
    assert shown(page, "name") == gguf_json("info", "--json", TINY)["name"]
    page.focus("#tab-summary")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#tab-metadata", "aria-selected") == "true"
    assert page.evaluate("document.activeElement.id") == "tab-metadata"
    assert page.is_visible("#panel-metadata") and not page.is_visible("#panel-summary")
    page.keyboard.press("End")
    assert page.get_attribute("#tab-edit", "aria-selected") == "true"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#tab-summary", "aria-selected") == "true"
    # every form control has a label
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll("input, select, textarea")]
            .filter(e => !e.labels?.length && !e.getAttribute("aria-label")).map(e => e.id)"""
    )
    assert unlabelled == []
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert light != dark
    page.screenshot(path=str(ARTIFACTS / f"dark-{kind}.png"), full_page=True)
    assert not errors, errors
    page.close()


CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
BRACKETS = "{% for m in messages %}[{{ m.role | upper }}] {{ m.content }}\n{% endfor %}"


def test_chat_template_preview(browser, page_url, tmp_path):
    """The preview of a file's default and named chat templates is `gguf chat`'s text."""
    need("shared", TINY.exists(), f"{TINY} is absent (../shared/corpus)")
    url, kind = page_url
    one = tmp_path / "chat1.gguf"
    chat = tmp_path / "chat.gguf"
    gguf("meta", "set", "-o", one, TINY, "tokenizer.chat_template", CHATML)
    gguf("meta", "set", "-o", chat, one, "tokenizer.chat_template.brackets", BRACKETS)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi <there> & \"you\""}]
    conv = tmp_path / "messages.json"
    conv.write_text(json.dumps(messages))
    page, errors = open_page(browser, url)
    open_file(page, chat)
    tab(page, "chat")
    options = page.eval_on_selector_all("#chat-template option", "os => os.map(o => o.value)")
    assert len(options) == 2 and "brackets" in options, options
    page.fill("#chat-messages", json.dumps(messages))
    default = next(o for o in options if o != "brackets")
    page.select_option("#chat-template", default)
    text = lambda: page.evaluate("document.getElementById('chat-out').textContent")  # noqa: E731
    assert text() == gguf("chat", "--messages", conv, "--add-generation-prompt", chat).stdout.decode()
    page.uncheck("#chat-gen")
    assert text() == gguf("chat", "--messages", conv, chat).stdout.decode()
    page.select_option("#chat-template", "brackets")
    assert text() == gguf("chat", "--messages", conv, "--template", "brackets", chat).stdout.decode()
    page.fill("#chat-messages", "[{")
    assert page.evaluate("document.getElementById('chat-out').classList.contains('error')")
    page.screenshot(path=str(ARTIFACTS / f"chat-{kind}.png"), full_page=True)
    assert not errors, errors
    page.close()


AXE = pathlib.Path(os.environ.get("GGUFKIT_AXE", pathlib.Path.home() / ".cache/ggufkit/web-tools/node_modules/axe-core/axe.min.js"))
TABS = ["summary", "metadata", "tensors", "layout", "findings", "tokenizer", "chat", "edit"]


def axe_violations(page):
    """axe-core's violations of the page as it is now (every WCAG rule axe runs by default)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + ": " + (n.failureSummary || "").split("\\n").slice(1, 2).join(""))
        }))"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_audit(browser, site, scheme):
    """axe-core (npm, injected by Playwright) finds no moderate, serious or critical violation on
    the page, empty and with a model open, on every tab, in light and in dark."""
    need("axe", AXE.exists(), f"no axe-core at {AXE} (scripts/test_web.sh installs it with npm)")
    need("shared", TINY.exists(), f"{TINY} is absent (../shared/corpus)")
    page, errors = open_page(browser, (site / "index.html").as_uri())
    page.emulate_media(color_scheme=scheme)
    found = {"empty": axe_violations(page)}
    open_file(page, TINY)
    page.click('#tab-metadata')
    page.click('#metadata tr[data-key="tokenizer.ggml.tokens"] button')
    for name in TABS:
        tab(page, name)
        if name == "tokenizer":
            page.fill("#tok-text", SENTENCE)
        found[name] = axe_violations(page)
    page.screenshot(path=str(ARTIFACTS / f"axe-{scheme}.png"), full_page=True)
    for where, violations in found.items():
        for v in violations:
            print(f"axe {scheme} {where}: {v['impact']} {v['id']}: {v['help']} {v['nodes']}")
    bad = {where: [v for v in vs if v["impact"] in ("moderate", "serious", "critical")] for where, vs in found.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, json.dumps(bad, indent=1)
    assert not errors, errors
    page.close()
