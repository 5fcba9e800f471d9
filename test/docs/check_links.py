#!/usr/bin/python3
"""Every relative link of the project's Markdown files resolves.

A link [text](target) or [text](target#anchor) whose target is not a URL must
name a file or directory of the tree, and an anchor must name a heading of the
target Markdown file (GitHub's slugs: lower case, punctuation dropped, spaces
to hyphens, -1/-2 for repeats) or an explicit <a name|id="...">.
Absolute URLs are skipped; a link out of the repository (say ../shared/...) is
broken: it resolves in no clone, package or release.

usage: check_links.py SOURCE_DIR
"""
import os
import re
import sys

SKIP_DIRS = {".git", "node_modules", "Testing"}
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        for name in filenames:
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def prose_lines(path):
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


def slug(heading):
    text = re.sub(r"<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        for _, line in prose_lines(path):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
            for a in re.findall(r'<a\s+(?:name|id)="([^"]+)"', line):
                found.add(a)
        cache[path] = found
    return cache[path]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    broken, checked = [], 0
    for md in sorted(markdown_files(root)):
        for number, line in prose_lines(md):
            line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # a URL (https:, mailto:, ...)
                path, _, anchor = target.partition("#")
                where = f"{os.path.relpath(md, root)}:{number}"
                resolved = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
                checked += 1
                if not resolved.startswith(root + os.sep) and resolved != root:
                    # outside the repository: broken in a clone, a package or a release
                    broken.append(f"{where}: {target}: outside the repository")
                    continue
                if not os.path.exists(resolved):
                    broken.append(f"{where}: {target}: no such file")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    broken.append(f"{where}: {target}: no heading #{anchor}")
    for b in broken:
        print(b)
    if broken:
        sys.exit(1)
    print(f"check_links: {checked} relative links resolve")


main()
