#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fuzz-style pass over the text vdsokit writes (tests/cli-fuzz-text.t).

compare: bench files with random labels (lone surrogates, raw 0xFF, ESC,
newlines, '|', '<&"', \\u0000, any code point) -> --json must parse as
strict UTF-8 JSON, --svg must pass xmllint, --markdown must keep one row
per line and its cell count, text must be UTF-8 without control bytes.
inspect: an image with mutated symbol names and random byte flips ->
--json and text held to the same rules, or a clean refusal (exit 2,
message, no stdout); never a crash.

Prints TAP-ish lines "ok/not ok DESCRIPTION" for the shell test to count.
Usage: fuzz_text.py VDSOKIT IMAGE WORKDIR SEED ROUNDS
"""
import json
import os
import random
import re
import subprocess
import sys

vdsokit, image_path, work, seed, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
failures = []


def fail(what, detail):
    failures.append(f"{what}: {detail}")


def run(args, stdin=None):
    p = subprocess.run([vdsokit] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def control_bytes(data):
    """Control characters other than newline, in bytes already known to be UTF-8."""
    text = data.decode("utf-8")
    return [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]


def check_utf8_text(what, data):
    try:
        bad = control_bytes(data)
    except UnicodeDecodeError as e:
        fail(what, f"not UTF-8: {e}")
        return
    if bad:
        fail(what, f"control characters {[hex(ord(c)) for c in bad[:5]]}")


def check_json(what, data):
    try:
        text = data.decode("utf-8")       # strict: rejects encoded surrogates (ED A0 80)
        doc = json.loads(text)
    except (UnicodeDecodeError, ValueError) as e:
        fail(what, f"not valid JSON: {e}")
        return None
    if re.search(r"\\u[dD][89abAB]", text):
        fail(what, "a \\uD8xx surrogate escape in the output")
    return doc


# --- compare ----------------------------------------------------------------

PIECES = [b"\\ud800", b"\\udfff", b"\\ud800\\u0041", b"\xff", b"\xfe", b"\xc0\xaf", b"\xed\xa0\x80",
          b"\\n", b"\\r", b"\\t", b"|", b"<", b">", b"&", b"\\\"", b"'", b"\\u001b[2J", b"\x7f",
          b"\\u0085", b"\\uffff", b"\\ufffe", b"\xe2\x80\xa8", "µ×".encode(), b"\\\\", b"]]>",
          b"<!--", b"\\ud83d\\ude00", b"a", b"clock_gettime(MONOTONIC)"]


def random_label(allow_nul):
    parts = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.6:
            parts.append(rng.choice(PIECES))
        elif r < 0.9:
            cp = rng.choice([rng.randint(0x20, 0x7e), rng.randint(0xa0, 0xd7ff), rng.randint(0xe000, 0x10ffff)])
            # '"' and '\\' raw would end the JSON string: those always as \\u escapes.
            escaped = cp < 0x10000 and (cp in (0x22, 0x5c) or rng.random() < 0.5)
            parts.append(("\\u%04x" % cp).encode() if escaped else chr(cp).encode("utf-8"))
        else:
            parts.append(bytes([rng.randint(0x80, 0xff)]))
    if allow_nul:
        parts.insert(rng.randint(0, len(parts)), b"\\u0000")
    return b"".join(parts)


def bench_file(labels, release):
    rows = []
    for i, label in enumerate(labels):
        rows.append(b'{ "label": "' + label + b'", "paths": { "vdsokit": { "median_ns": %d }, "syscall": { "median_ns": %d } } }'
                    % (i + 1, 10 * (i + 1)))
    return (b'{ "schema": "vdsokit-bench", "schema_version": 1, "host": { "kernel_release": "' + release +
            b'", "machine": "x86_64" }, "results": [ ' + b", ".join(rows) + b" ] }")


compare_runs = compare_files = compare_refusal_files = 0
for n in range(rounds):
    nul = n % 10 == 9          # every tenth file holds a \u0000: a clean refusal
    compare_files += 1
    compare_refusal_files += nul
    labels = [random_label(nul and i == 0) for i in range(rng.randint(1, 6))]
    path = os.path.join(work, "fuzz.json")
    with open(path, "wb") as f:
        f.write(bench_file(labels, random_label(False)))
    svg = os.path.join(work, "fuzz.svg")
    for mode in ("--json", "--markdown", "text"):
        args = ["compare", path] + ([] if mode == "text" else [mode])
        if mode == "--json":
            args += ["--svg", svg]
        status, out, err = run(args)
        compare_runs += 1
        what = f"compare {mode} round {n}"
        if nul:
            if status != 2 or b"\\u0000" not in err or out:
                fail(what, f"a \\u0000 label: want exit 2 naming \\u0000 and no output, got {status} {err[:100]!r}")
            continue
        if status != 0:
            fail(what, f"exit {status}: {err[:200]!r}")
            continue
        if mode == "--json":
            doc = check_json(what, out)
            if doc is not None and len(doc.get("rows", [])) != len(labels):
                fail(what, f"{len(doc.get('rows', []))} rows for {len(labels)} labels")
            x = subprocess.run(["xmllint", "--noout", svg], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if x.returncode != 0:
                fail(f"compare --svg round {n}", x.stderr.decode(errors="replace")[:200])
        elif mode == "--markdown":
            check_utf8_text(what, out)
            lines = out.decode("utf-8", "replace").split("\n")[:-1]
            if len(lines) != len(labels) + 2:
                fail(what, f"{len(lines)} lines for {len(labels)} rows + 2")
            for line in lines:
                cells = re.split(r"(?<!\\)\|", line)
                if len(cells) != 6:
                    fail(what, f"a row of {len(cells) - 2} cells: {line[:80]!r}")
                    break
        else:
            check_utf8_text(what, out)

# --- inspect ------------------------------------------------------------------

with open(image_path, "rb") as f:
    original = f.read()
# Where the symbol names are: mutate those bytes most, so names go non-UTF-8.
name_spans = [m.span() for m in re.finditer(rb"(__vdso_|__kernel_|LINUX_)[A-Za-z0-9_.]*", original)]
NASTY = [0x1b, 0x07, 0x08, 0x0d, 0x7f, 0x80, 0x9b, 0xc0, 0xed, 0xff, 0xfe, 0x0a, 0x22, 0x5c, 0x3c]

inspect_runs = inspect_images = accepted = 0
for n in range(rounds * 4):
    inspect_images += 1
    data = bytearray(original)
    for _ in range(rng.randint(1, 6)):
        if name_spans and rng.random() < 0.8:
            start, end = rng.choice(name_spans)
            pos = rng.randrange(start, end)
        else:
            pos = rng.randrange(len(data))
        data[pos] = rng.choice(NASTY) if rng.random() < 0.7 else rng.randrange(256)
    path = os.path.join(work, "fuzz.so")
    with open(path, "wb") as f:
        f.write(data)
    for mode in ("--json", "text"):
        status, out, err = run(["inspect", path] + ([mode] if mode == "--json" else []))
        inspect_runs += 1
        what = f"inspect {mode} image {n}"
        if status == 2:
            if out or not err:
                fail(what, f"a refusal must say why on stderr and write nothing: {err[:100]!r}")
            continue
        if status != 0:
            fail(what, f"exit {status} (signal {-status if status < 0 else ''}): {err[:200]!r}")
            continue
        accepted += 1
        if mode == "--json":
            check_json(what, out)
        else:
            check_utf8_text(what, out)

print(f"# seed {seed}: {compare_runs} compare runs on {compare_files} files, "
      f"{inspect_runs} inspect runs on {inspect_images} images ({accepted} runs accepted the image)")
for f in failures[:20]:
    print(f"# FAIL {f}")
print(f"compare_failures {sum(1 for f in failures if f.startswith('compare'))}")
print(f"inspect_failures {sum(1 for f in failures if f.startswith('inspect'))}")
# What ran, for the shell test's descriptions: counted as it ran, not derived from ROUNDS.
print(f"compare_runs {compare_runs}")
print(f"compare_files {compare_files}")
print(f"compare_refusal_files {compare_refusal_files}")
print(f"inspect_runs {inspect_runs}")
print(f"inspect_images {inspect_images}")
print(f"inspect_accepted_runs {accepted}")
