#!/usr/bin/python3
"""Requests generated from docs/openapi.yaml against a live stack: no 5xx, every answer documented.

For every operation of the document, Hypothesis draws requests: path and query
parameters and JSON bodies from the document's schemas (and, one time in four,
a body that breaks them: another JSON value, or bytes that are not JSON), with
no credentials, a forged token, or a real token of a user or an admin. Each
answer must
  - not be a 5xx, unless the operation documents that status (the spec's
    `500 Invalid Login` of /signin, 501 of a feature that is off, ...);
  - have a status the operation documents;
  - when the document gives a JSON schema for that status, be JSON that the
    schema accepts (JSON Schema 2020-12, as OpenAPI 3.1 says).
Every failure is printed with the request that caused it; exit status 1.

usage: generated_requests.py DOC BASE_URL USER_TOKEN ADMIN_TOKEN [EXAMPLES]
"""
import base64
import http.client
import json
import sys
import urllib.parse

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# Operations that would end the very tokens the run signs its requests with:
# drawn without real credentials.
ENDS_SESSIONS = {("post", "/signout"), ("post", "/signout/all"), ("put", "/me/password")}


def resolve(node, root):
    """The document with every local $ref replaced by what it points to."""
    if isinstance(node, dict):
        if "$ref" in node and node["$ref"].startswith("#/"):
            target = root
            for part in node["$ref"][2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return resolve(target, root)
        return {k: resolve(v, root) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, root) for v in node]
    return node


# Path and query values: printable ASCII. Web servers refuse control characters
# and malformed UTF-8 in URLs themselves (lighttpd answers its own 400 page),
# so such requests would test the front server, not authd.
URL_TEXT = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=30)


def url_value(schema):
    """A strategy for a path or query parameter: the schema's, as printable ASCII."""
    if schema.get("type") == "string" and "pattern" not in schema and "enum" not in schema:
        return URL_TEXT
    return from_schema(schema).map(str).filter(lambda v: all(0x21 <= ord(c) <= 0x7E for c in v))


def from_schema(schema):
    """A Hypothesis strategy for the subset of JSON Schema the document uses."""
    if not schema:
        return st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                            max_leaves=6)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for combinator in ("oneOf", "anyOf"):
        if combinator in schema:
            return st.one_of([from_schema(s) for s in schema[combinator]])
    kind = schema.get("type")
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=40)
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum", -10**6), max_value=10**6)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=min(3, schema.get("maxItems", 3)))
    if kind == "object":
        properties = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in properties]
        optional = {k: from_schema(v) for k, v in properties.items() if k not in required}
        fixed = st.fixed_dictionaries({k: from_schema(properties[k]) for k in required}, optional=optional)
        if schema.get("additionalProperties", True) is not False:
            extra = st.dictionaries(st.text(min_size=1, max_size=8), st.text(max_size=10) | st.integers(), max_size=2)
            return st.tuples(fixed, extra).map(lambda pair: {**pair[1], **pair[0]})
        return fixed
    return from_schema({})


def broken_body():
    """A body that does not follow any schema: another JSON value, or not JSON at all."""
    return st.one_of(st.binary(max_size=64), from_schema({}).map(lambda v: json.dumps(v).encode()))


class Run:
    def __init__(self, doc, base, user_token, admin_token):
        self.doc, self.failures, self.requests = doc, [], 0
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname, url.port or 80
        self.credentials = {"none": None, "forged": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.AAAA",
                            "user": f"Bearer {user_token}", "admin": f"Bearer {admin_token}",
                            "basic": "Basic " + base64.b64encode(b"nobody:wrong").decode()}

    def send(self, method, path, query, body, authorization, content_type):
        headers = {"Accept": "application/json"}
        if authorization:
            headers["Authorization"] = authorization
        if body is not None:
            headers["Content-Type"] = content_type
        target = urllib.parse.quote(path, safe="/.-_~") + ("?" + urllib.parse.urlencode(query) if query else "")
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method.upper(), target, body=body, headers=headers)
            answer = connection.getresponse()
            return answer.status, answer.getheader("Content-Type", ""), answer.read()
        finally:
            connection.close()
            self.requests += 1

    def check(self, method, template, operation, drawn):
        path, query, body, who, content_type = drawn
        status, answer_type, answer = self.send(method, path, query, body, self.credentials[who], content_type)
        where = f"{method.upper()} {path}{'?' + urllib.parse.urlencode(query) if query else ''} ({who}, body {body[:80]!r})" if body else \
                f"{method.upper()} {path}{'?' + urllib.parse.urlencode(query) if query else ''} ({who})"
        documented = operation.get("responses", {})
        response = documented.get(str(status))
        if response is None:
            kind = "a 5xx" if status >= 500 else "a status"
            self.failures.append(f"{where}: {kind} the document does not name: {status} {answer[:200]!r}")
            return
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if schema is None or method == "head":
            return
        if "json" not in answer_type:
            self.failures.append(f"{where}: {status} answered {answer_type!r}, the document says application/json")
            return
        try:
            value = json.loads(answer)
        except ValueError:
            self.failures.append(f"{where}: {status} answered a body that is not JSON: {answer[:200]!r}")
            return
        errors = sorted(Draft202012Validator(schema).iter_errors(value), key=str)
        if errors:
            self.failures.append(f"{where}: {status} {answer[:200]!r} breaks the schema: {errors[0].message}")

    def strategy(self, method, template, operation, path_item):
        parameters = path_item.get("parameters", []) + operation.get("parameters", [])
        path_params = {p["name"]: url_value(p.get("schema", {})).filter(lambda s: "/" not in str(s) and str(s) not in ("", ".", ".."))
                       for p in parameters if p["in"] == "path"}
        query_params = {p["name"]: url_value(p.get("schema", {}))
                        for p in parameters if p["in"] == "query"}
        content = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if content:
            good = from_schema(content.get("schema", {})).map(lambda v: json.dumps(v).encode())
            bodies = st.one_of(good, good, good, broken_body())
        else:
            bodies = st.none()
        who = ["none", "forged"] if (method, template) in ENDS_SESSIONS else ["none", "forged", "user", "admin", "basic"]

        def fill(values):
            path = template
            for name, value in values.items():
                path = path.replace("{" + name + "}", str(value))
            return path

        return st.tuples(st.fixed_dictionaries(path_params).map(fill),
                         st.fixed_dictionaries({}, optional=query_params),
                         bodies, st.sampled_from(who),
                         st.sampled_from(["application/json", "application/json", "text/plain"]))

    def run(self, examples):
        for template, path_item in self.doc["paths"].items():
            for method in METHODS:
                operation = path_item.get(method)
                if operation is None:
                    continue

                @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
                @given(self.strategy(method, template, operation, path_item))
                def property_of_operation(drawn):
                    self.check(method, template, operation, drawn)

                property_of_operation()


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    doc_path, base, user_token, admin_token = sys.argv[1:5]
    examples = int(sys.argv[5]) if len(sys.argv) > 5 else 25
    with open(doc_path, encoding="utf-8") as f:
        raw = yaml.safe_load(f)
    doc = resolve(raw, raw)
    run = Run(doc, base, user_token, admin_token)
    run.run(examples)
    for failure in run.failures:
        print(failure)
    print(f"generated_requests: {run.requests} requests, {len(run.failures)} failures")
    sys.exit(1 if run.failures else 0)


main()
