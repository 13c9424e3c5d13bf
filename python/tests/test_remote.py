"""A file over HTTP: `open` reads the header by range requests (a local server that serves byte
ranges), values and tensors are those of the local file, tensor data is fetched when asked, and
`validate` works on the URL; a server that goes away is an error, not a hang or a crash."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

import ggufkit
from conftest import SAMPLE

DATA = SAMPLE.read_bytes()


class Ranges(BaseHTTPRequestHandler):
    requests: list = []
    served: list = []  # body bytes of each answer

    def log_message(self, *args):  # quiet
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", str(len(DATA)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()

    def do_GET(self):
        m = re.match(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        Ranges.requests.append(self.headers.get("Range"))
        if not self.path.endswith("/m.gguf"):
            self.send_error(404)
            return
        if not m:
            self.send_response(200)
            self.send_header("Content-Length", str(len(DATA)))
            self.end_headers()
            Ranges.served.append(len(DATA))
            self.wfile.write(DATA)
            return
        a = int(m.group(1))
        b = min(int(m.group(2)) if m.group(2) else len(DATA) - 1, len(DATA) - 1)
        body = DATA[a : b + 1]
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {a}-{b}/{len(DATA)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        Ranges.served.append(len(body))
        self.wfile.write(body)


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Ranges)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_a_url_reads_as_the_file(server):
    local = ggufkit.open(SAMPLE)
    f = ggufkit.open(server + "/m.gguf")
    assert f.name == server + "/m.gguf"
    assert list(f.metadata) == list(local.metadata)
    assert f.metadata["tokenizer.ggml.tokens"].tolist() == local.metadata["tokenizer.ggml.tokens"].tolist()
    assert np.array_equal(f.metadata["tokenizer.ggml.scores"], local.metadata["tokenizer.ggml.scores"])
    for t, u in zip(f.tensors, local.tensors):
        assert (t.name, t.type, t.shape, t.data_offset) == (u.name, u.type, u.shape, u.data_offset)
    t = f.tensor("blk.0.attn_q.weight")
    assert t.raw.tobytes() == local.tensor("blk.0.attn_q.weight").raw.tobytes()
    assert np.array_equal(t.numpy(), local.tensor("blk.0.attn_q.weight").numpy())
    assert f.summary()["tensor_count"] == local.summary()["tensor_count"]
    assert ggufkit.validate(server + "/m.gguf").valid


def test_cost_is_what_the_server_sent(server):
    # a local file and bytes are mapped or held, not fetched
    assert ggufkit.open(SAMPLE).cost is None
    assert ggufkit.open(DATA).cost is None
    Ranges.requests.clear()
    Ranges.served.clear()
    f = ggufkit.open(server + "/m.gguf")
    assert f.cost == {"bytes": sum(Ranges.served), "requests": len(Ranges.requests)}
    assert f.cost["requests"] >= 1
    before = f.cost
    n = f.tensor("blk.0.attn_q.weight").raw.nbytes
    # the tensor's data: one more range request, exactly its bytes
    assert f.cost == {"bytes": before["bytes"] + n, "requests": before["requests"] + 1}
    assert f.cost == {"bytes": sum(Ranges.served), "requests": len(Ranges.requests)}


def test_missing_objects_and_dead_servers_are_errors(server):
    with pytest.raises((OSError, ggufkit.GGUFError)):
        ggufkit.open(server + "/absent.gguf")
    with pytest.raises((OSError, ggufkit.GGUFError)):
        ggufkit.open("http://127.0.0.1:9/m.gguf")  # nothing listens on the discard port
