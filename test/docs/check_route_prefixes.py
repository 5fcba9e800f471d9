#!/usr/bin/python3
"""Every route of the route table reaches authd through every shipped front-server configuration.

The web servers hand authd only the paths that their configuration's regular
expression names (lighttpd's $HTTP["url"], Apache's ProxyPassMatch and
LocationMatch, mod_fcgid's LocationMatch, the hosting release's RewriteRule,
nginx's location, and the copies of them in the docs). A route added to
src/routes.cpp but not to one of them answers that server's 404 page instead.
This test takes each such expression (the lines that route /signup, /signin
and /signout together) and fails, naming file, line and path, for each route
path it does not match.

usage: check_route_prefixes.py SOURCE_DIR
"""
import glob
import os
import re
import sys

# Where the front servers' routing expressions live (globs, relative to the tree).
CONFIGURATIONS = ["conf/**/*.conf", "conf/**/*.in", "conf/**/Caddyfile*", "packaging/**/*.in",
                  "packaging/**/*.conf", "debian/**/*.conf", "README.md", "docs/*.md"]
MARKER = "signup|signin|signout"
# The portal host of the forward-auth setup routes pages and sign-in only, by design.
PORTAL_ONLY = "login|account|admin|assets"
# The expression: from ^ to the end of the group that follows the alternation.
EXPRESSION = re.compile(r"\^/?\((?:[^()]|\([^()]*\))*?" + re.escape(MARKER) + r"[^)]*\)(?:\(/\|\$\)|\(/\.\*\)\?\$|\(/\|\\\$\))?")


def route_paths(source):
    text = open(f"{source}/src/routes.cpp", encoding="utf-8").read()
    paths = {re.sub(r"\{[^}]*\}", "x1", p) for p in re.findall(r'Route\{"(?:[A-Z]+|\*)",\s*"([^"]+)"', text)}
    if not paths:
        sys.exit("check_route_prefixes: no Route{...} in src/routes.cpp")
    return sorted(paths)


def main():
    source = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    paths = route_paths(source)
    files = sorted({f for pattern in CONFIGURATIONS for f in glob.glob(f"{source}/{pattern}", recursive=True)})
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
    for p in problems:
        print(p)
    if checked == 0:
        sys.exit("check_route_prefixes: found no routing expression (has the marker changed?)")
    if problems:
        sys.exit(1)
    print(f"check_route_prefixes: {checked} routing expressions route all {len(paths)} paths")


main()
