#!/usr/bin/python3
"""Every route of the route table reaches authd through every shipped front-server configuration.

The web servers hand authd only the paths that their configuration's regular
expression names (lighttpd's $HTTP["url"], Apache's ProxyPassMatch and
LocationMatch, mod_fcgid's LocationMatch, the hosting release's RewriteRule,
nginx's location, and the copies of them in the docs). A route added to
a src/api/<group>/routes.hpp but not to one of them answers that server's 404 page instead.
This test takes each such expression (the lines that route /signup, /signin
and /signout together) and fails, naming file, line and path, for each route
path it does not match.

With --fix, each such expression's list of prefixes is rewritten to the one
the route table implies (the first path segment of each route, or two where
the first is also a page of www/, or the whole path under .well-known), so a
new route reaches authd everywhere by running this once.

usage: check_route_prefixes.py [--fix] SOURCE_DIR
"""
import glob
import os
import re
import sys

from route_table import routes

# Where the front servers' routing expressions live (globs, relative to the tree).
CONFIGURATIONS = ["conf/**/*.conf", "conf/**/*.in", "conf/**/Caddyfile*", "packaging/**/*.in",
                  "packaging/**/*.conf", "debian/**/*.conf", "debian/**/*.in", "README.md", "docs/*.md"]
MARKER = "signup|signin|signout"
# The portal host of the forward-auth setup routes pages and sign-in only, by design.
PORTAL_ONLY = "login|"
# The expression: from ^ to the end of the group that follows the alternation.
EXPRESSION = re.compile(r"\^/?\((?:[^()]|\([^()]*\))*?" + re.escape(MARKER) + r"[^)]*\)(?:\(/\|\$\)|\(/\.\*\)\?\$|\(/\|\\\$\))?")


def route_paths(source):
    return sorted({re.sub(r"\{[^}]*\}", "x1", path) for _, path in routes(source)})


def canonical_prefixes(source):
    """The alternation the route table implies, in the table's order."""
    pages = {os.path.splitext(name)[0] for name in os.listdir(f"{source}/www")}
    prefixes = []
    for _, path in routes(source):
        segments = path.strip("/").split("/")
        if segments[0] == ".well-known":
            prefix = path.strip("/")
        elif segments[0] in pages and len(segments) > 1:
            prefix = "/".join(segments[:2])
        else:
            prefix = segments[0]
        prefix = re.sub(r"\{[^}]*\}.*", "", prefix).rstrip("/")
        if prefix not in prefixes:
            prefixes.append(prefix)
    # a prefix already covered by a shorter one (auth covers auth/check) is left out
    prefixes = [p for p in prefixes if not any(p.startswith(q + "/") for q in prefixes)]
    # the marker's three first (so that the expression stays recognisable), then the table's order
    first = MARKER.split("|")
    prefixes = first + [p for p in prefixes if p not in first]
    return "|".join(p.replace(".", "\\.") for p in prefixes)


def fix(source, files):
    alternation = canonical_prefixes(source)
    for name in files:
        with open(name, encoding="utf-8") as f:
            text = f.read()
        def rewrite(m):
            expression = m.group(0)
            if PORTAL_ONLY in expression:
                return expression
            return re.sub(r"\((?:[^()]|\([^()]*\))*?" + re.escape(MARKER) + r"[^)]*\)", "(" + alternation + ")", expression, count=1)
        fixed = EXPRESSION.sub(rewrite, text)
        if fixed != text:
            with open(name, "w", encoding="utf-8") as f:
                f.write(fixed)
            print(f"check_route_prefixes: rewrote {os.path.relpath(name, source)}")


def main():
    arguments = [a for a in sys.argv[1:] if a != "--fix"]
    source = os.path.abspath(arguments[0] if arguments else ".")
    paths = route_paths(source)
    files = sorted({f for pattern in CONFIGURATIONS for f in glob.glob(f"{source}/{pattern}", recursive=True)})
    if "--fix" in sys.argv[1:]:
        fix(source, files)
    problems, checked = [], 0
    for name in files:
        with open(name, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if MARKER not in line:
                    continue
                for m in EXPRESSION.finditer(line):
                    if PORTAL_ONLY in m.group(0):
                        continue
                    expression = m.group(0).replace("\\$", "$")
                    anchored_slash = expression.startswith("^/")
                    checked += 1
                    for path in paths:
                        subject = path if anchored_slash else path.lstrip("/")
                        if not re.match(expression, subject):
                            problems.append(f"{os.path.relpath(name, source)}:{number}: {path} does not reach authd")
    # H2O routes by path prefix: `/prefix: *authd` entries (conf/h2o/authd.conf).
    for name in files:
        with open(name, encoding="utf-8") as f:
            entries = [(n, m.group(1)) for n, line in enumerate(f, 1)
                       for m in [re.match(r"^\s+(/\S*):\s*[*&]authd\b", line)] if m]
        if not entries:
            continue
        checked += 1
        for path in paths:
            if not any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for _, prefix in entries):
                problems.append(f"{os.path.relpath(name, source)}:{entries[0][0]}: {path} does not reach authd")
    for p in problems:
        print(p)
    if checked == 0:
        sys.exit("check_route_prefixes: found no routing expression (has the marker changed?)")
    if problems:
        sys.exit(1)
    print(f"check_route_prefixes: {checked} routing expressions route all {len(paths)} paths")


main()
