#!/usr/bin/env python3
"""lib/'s modules: their include graph, its cycles, and the layering check.

  scripts/lib-modules.py [ROOT]           check (CTest unit.layering); exit 1 on an offence
  scripts/lib-modules.py --graph [ROOT]   print the module include graph and its cycles

A module is a folder lib/<module>/. Its public headers are
lib/<module>/include/authd/*.hpp (spelled "authd/<header>.hpp"); every other
header under lib/<module>/ is private to it. lib/modules.txt gives the order,
one level a line, lowest first (modules on one line are peers). The check:
  - a module includes public headers of its own or of modules on earlier lines
    only (no include runs up the order or sideways to a peer);
  - a private header is included from its own module only;
  - every folder under lib/ with sources is listed in lib/modules.txt, once.
Each offence is printed as file:line, the include line and the rule it breaks.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]')
SOURCE_SUFFIXES = ('.cpp', '.hpp', '.h', '.cc')


def read_order(lib):
    """lib/modules.txt -> {module: level}, [levels]."""
    levels = []
    path = os.path.join(lib, 'modules.txt')
    if not os.path.isfile(path):
        sys.exit(f'{path}: missing (the module order): wrong ROOT?')
    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.split('#', 1)[0].split()
            if line:
                levels.append(line)
    return levels


def module_of(lib, path):
    rel = os.path.relpath(path, lib)
    return None if rel.startswith('..') else rel.split(os.sep, 1)[0]


def sources(lib):
    for dirpath, _, names in os.walk(lib):
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def public_headers(lib):
    """"authd/x.hpp" -> [owning module, ...] (more than one is an offence)."""
    owners = {}
    for module in sorted(os.listdir(lib)):
        folder = os.path.join(lib, module, 'include', 'authd')
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                owners.setdefault('authd/' + name, []).append(module)
    # The shared folder of old, while it exists: its headers belong to no module.
    shared = os.path.join(lib, 'include', 'authd')
    if os.path.isdir(shared):
        for name in sorted(os.listdir(shared)):
            owners.setdefault('authd/' + name, []).append('include')
    return owners


def resolve(lib, including, spelled, owners):
    """The (module, public?) an include names, or None outside lib/ (std, third party)."""
    if spelled.startswith('authd/'):
        if spelled in owners:
            return owners[spelled][0], True
        return None
    # A quoted include: beside the including file first, then from lib/ (tests'
    # and older spellings "module/header.hpp").
    for base in (os.path.dirname(including), lib):
        candidate = os.path.normpath(os.path.join(base, spelled))
        if os.path.isfile(candidate):
            module = module_of(lib, candidate)
            if module is None:
                return None
            public = os.sep + os.path.join('include', 'authd') + os.sep in candidate
            return module, public
    return None


def scan(lib):
    owners = public_headers(lib)
    edges = {}  # (from, to) -> [(file, line number, text, public?)]
    for path in sources(lib):
        module = module_of(lib, path)
        with open(path, encoding='utf-8', errors='replace') as f:
            for number, text in enumerate(f, 1):
                match = INCLUDE.match(text)
                if not match:
                    continue
                target = resolve(lib, path, match.group(1), owners)
                if target is None:
                    continue
                edges.setdefault((module, target[0]), []).append(
                    (os.path.relpath(path, os.path.dirname(lib)), number, text.strip(), target[1]))
    return owners, edges


def cycles(modules, edges):
    """Strongly connected components with more than one module (Tarjan)."""
    graph = {m: sorted({b for (a, b) in edges if a == m and b != m}) for m in modules}
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def print_graph(lib):
    _, edges = scan(lib)
    modules = sorted({m for e in edges for m in e})
    print('module include graph of lib/ (module -> modules whose headers it includes: count of include lines)')
    for m in modules:
        targets = sorted((b, len(v)) for (a, b), v in edges.items() if a == m and b != m)
        print(f'  {m} -> ' + (', '.join(f'{b} ({n})' for b, n in targets) or '(none)'))
    private = [(a, b, x) for (a, b), v in edges.items() if a != b for x in v if not x[3]]
    print(f'private headers included across modules: {len(private)}')
    for a, b, (file, number, text, _) in sorted(private):
        print(f'  {file}:{number}: {text}  ({a} -> private header of {b})')
    found = cycles(modules, edges)
    print(f'include cycles (strongly connected sets of modules): {len(found)}')
    for component in found:
        print('  ' + ', '.join(component))
        for (a, b), v in sorted(edges.items()):
            if a != b and a in component and b in component:
                print(f'    {a} -> {b}: ' + '; '.join(f'{f}:{n}' for f, n, _, _ in v[:3])
                      + (f' (+{len(v) - 3})' if len(v) > 3 else ''))
    return 0


def check(lib):
    levels = read_order(lib)
    level = {}
    offences = []
    for i, line in enumerate(levels):
        for m in line:
            if m in level:
                offences.append(f'lib/modules.txt: module {m} listed twice')
            level[m] = i
    owners, edges = scan(lib)
    for header, modules in sorted(owners.items()):
        if len(modules) > 1:
            offences.append(f'{header}: public header of more than one module ({", ".join(modules)})')
    present = sorted({module_of(lib, p) for p in sources(lib)} - {'.'})
    for m in present:
        if m not in level:
            offences.append(f'lib/{m}/: a module missing from lib/modules.txt (give it its place in the order)')
    for m in level:
        if m not in present:
            offences.append(f'lib/modules.txt: module {m} has no folder lib/{m}/')
    for (a, b), uses in sorted(edges.items()):
        if a == b:
            continue
        for file, number, text, public in uses:
            if not public:
                offences.append(f'{file}:{number}: {text}: a private header of module {b}, '
                                f'included from module {a} (only lib/{b}/include/authd/ is public)')
            elif a in level and b in level and level[b] >= level[a]:
                where = 'a peer of' if level[b] == level[a] else 'above'
                offences.append(f'{file}:{number}: {text}: module {a} includes module {b}, '
                                f'which is {where} it in lib/modules.txt (a module includes only modules below it)')
    if not present:
        print(f'no modules under {lib}: wrong ROOT?', file=sys.stderr)
        return 1
    if offences:
        print("lib/'s module order is broken:", file=sys.stderr)
        for o in offences:
            print('  ' + o, file=sys.stderr)
        return 1
    found = cycles(present, edges)
    if found:  # cannot happen when the order holds; kept as a guard of the guard
        print('include cycles: ' + '; '.join(', '.join(c) for c in found), file=sys.stderr)
        return 1
    print(f'lib/ modules: {len(present)} in {len(levels)} levels, no include runs up or sideways, '
          f'no private header crosses a module, no cycle')
    return 0


def main(argv):
    graph = '--graph' in argv
    rest = [a for a in argv if a != '--graph']
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    lib = os.path.join(os.path.abspath(root), 'lib')
    return print_graph(lib) if graph else check(lib)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
