"""The route table of src/api/routes.cpp, read by the docs checks (check_openapi.py,
check_route_prefixes.py): every Route{"METHOD", "/path", ...} in table order."""
import re
import sys


def routes(source):
    """[(method, path)] in the table's order; method "*" means any."""
    with open(f"{source}/src/api/routes.cpp", encoding="utf-8") as f:
        found = re.findall(r'Route\{"([A-Z]+|\*)",\s*"([^"]+)"', f.read())
    if not found:
        sys.exit("no Route{...} found in src/api/routes.cpp (has the table moved?)")
    return found
