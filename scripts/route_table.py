"""The route table, as the route groups declare it: every Route{"METHOD",
"/path", ...} row of src/api/<group>/routes.hpp (src/api/router.cpp joins
them). Read by scripts/front-routes.py and test/docs/check_openapi.py."""
import glob
import re
import sys


def routes(source):
    """[(method, path)], group by group; method "*" means any."""
    found = []
    for name in sorted(glob.glob(f"{source}/src/api/*/routes.hpp")):
        with open(name, encoding="utf-8") as f:
            found += re.findall(r'Route\{"([A-Z]+|\*)",\s*"([^"]+)"', f.read())
    if not found:
        sys.exit("no Route{...} row found in src/api/*/routes.hpp (has the table moved?)")
    return found
