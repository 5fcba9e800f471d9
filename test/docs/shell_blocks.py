#!/usr/bin/python3
"""The runnable shell blocks of README.md and docs/*.md (test/blackbox/t_docs_commands.sh).

A block fenced ```sh is a command a reader may type as written, and the test
runs it. One that a test cannot run (root, a package, another machine, a
server that runs until Ctrl-C) says why on the line just before its fence:

    <!-- not run: needs root and systemd -->
    ```sh

Shell commands are fenced ```sh only (```bash and ```shell are refused, so
that no command escapes the rule); transcripts and output are ```text.

usage: shell_blocks.py SOURCE_DIR OUT_DIR
  writes OUT_DIR/NNN.sh per runnable block (first line: "# FILE:LINE") in
  document order, README.md first; exits 1 naming each refused fence or
  reasonless marker.
"""
import glob
import os
import re
import sys

# Documents left out of the run (none: a block that cannot run is marked).
LEFT_OUT: set[str] = set()
FENCE = re.compile(r"^(\s*)```\s*([A-Za-z0-9_+-]*)\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$")


def blocks(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        body = [line[len(indent):] if line.startswith(indent) else line for line in lines[i + 1:j]]
        marker = NOT_RUN.match(lines[i - 1]) if i > 0 else None
        yield i + 1, lang, marker, "\n".join(body)
        i = j + 1


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(f"{root}/docs/*.md"))
    errors, n, skipped = [], 0, 0
    for rel in files:
        if rel in LEFT_OUT:
            continue
        for line, lang, marker, body in blocks(os.path.join(root, rel)):
            where = f"{rel}:{line}"
            if lang in ("bash", "shell"):
                errors.append(f"{where}: ```{lang}: fence shell commands ```sh (run, or marked not run)")
            if lang != "sh":
                continue
            if marker is not None:
                if not marker.group(1):
                    errors.append(f"{where}: <!-- not run: --> without a reason")
                skipped += 1
                continue
            n += 1
            with open(os.path.join(out, f"{n:03d}.sh"), "w", encoding="utf-8") as f:
                f.write(f"# {where}\n{body}\n")
    for e in errors:
        print(e)
    print(f"shell_blocks: {n} blocks to run, {skipped} marked not run, left out: {', '.join(sorted(LEFT_OUT))}")
    sys.exit(1 if errors else 0)


main()
