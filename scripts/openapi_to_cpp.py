#!/usr/bin/python3
"""Builds the data of openapi_document.cpp (in the build tree; served by src/api/operations/openapi.cpp): docs/openapi.yaml as compact JSON in a C++ string.

usage: openapi_to_cpp.py docs/openapi.yaml OUTPUT.cpp
The build runs it (src/CMakeLists.txt) whenever the document changes, so the
document authd serves at GET /openapi.json is always the committed one.
"""
import json
import sys

import yaml

source, output = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as f:
    document = json.dumps(yaml.safe_load(f), separators=(",", ":"), ensure_ascii=False)
delimiter = "authd_openapi"
assert f'){delimiter}"' not in document
with open(output, "w", encoding="utf-8") as f:
    f.write("// Generated from docs/openapi.yaml by scripts/openapi_to_cpp.py: do not edit.\n")
    f.write("#include <string_view>\n\nnamespace authd::handlers {\n")
    # A raw literal per 16 KiB piece keeps every literal within what compilers accept.
    pieces = [document[i:i + 16384] for i in range(0, len(document), 16384)]
    f.write("extern const std::string_view kOpenApiDocument;\n")
    f.write("static constexpr char kDocument[] =\n")
    for piece in pieces:
        f.write(f'    R"{delimiter}({piece}){delimiter}"\n')
    f.write(";\nconst std::string_view kOpenApiDocument{kDocument, sizeof kDocument - 1};\n}  // namespace authd::handlers\n")
