#!/usr/bin/python3
"""docs/openapi.yaml names exactly the routes of the route table (the rows of src/api/<group>/routes.hpp).

Fails, naming each difference, when a route of the table is missing from the
document or the document names a method and path that the table does not have.
A route with method "*" (any method) must appear with every method the document
can name for a path: get, put, post, delete, options, head, patch.

usage: check_openapi.py SOURCE_DIR
"""
import os
import sys

import yaml

# The route table's reader lives beside the front servers' prefix generator.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from route_table import routes  # noqa: E402

ANY = {"get", "put", "post", "delete", "options", "head", "patch"}


def table_routes(source):
    return {(m, path) for method, path in routes(source) for m in (ANY if method == "*" else {method.lower()})}


def document_routes(source):
    with open(f"{source}/docs/openapi.yaml", encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    if not str(doc.get("openapi", "")).startswith("3.1"):
        sys.exit("check_openapi: docs/openapi.yaml is not OpenAPI 3.1")
    return {(m, path) for path, item in doc["paths"].items() for m in item if m in ANY}


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "."
    table, document = table_routes(source), document_routes(source)
    missing = sorted(table - document)
    extra = sorted(document - table)
    for m, p in missing:
        print(f"missing from docs/openapi.yaml: {m.upper()} {p}")
    for m, p in extra:
        print(f"docs/openapi.yaml names a route the table does not have: {m.upper()} {p}")
    if missing or extra:
        sys.exit(1)
    print(f"check_openapi: {len(table)} method+path pairs, document and route table agree")


main()
