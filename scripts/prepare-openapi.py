#!/usr/bin/env python3
"""Rewrites the backend's nullable fields into a form swift-openapi-generator understands.

The backend (Django Ninja / pydantic) spells a nullable field as
`anyOf: [<schema>, {"type": "null"}]`. swift-openapi-generator 1.14 does not support the
`null` schema and silently drops every such property (capacity, is_indoor, is_lit,
created_by, ErrorOut.details and the optional query parameters). This script rewrites each
of them to the equivalent OpenAPI 3.1 form it does support: `type: [<type>, "null"]` for
plain types, and the bare `$ref` (the field is not required, so it becomes an optional)
for references. Nothing else in the document changes.
"""
import json
import sys


def rewrite(node):
    if isinstance(node, dict):
        any_of = node.get("anyOf")
        if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
            other = next(s for s in any_of if s != {"type": "null"})
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            if "$ref" in other:
                merged = {"$ref": other["$ref"]}
                if "description" in rest:
                    merged["description"] = rest["description"]
            else:
                merged = {**rest, **other, "type": [other["type"], "null"]}
            node = merged
        return {k: rewrite(v) for k, v in node.items()}
    if isinstance(node, list):
        return [rewrite(v) for v in node]
    return node


source, target = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as f:
    document = json.load(f)
with open(target, "w", encoding="utf-8") as f:
    json.dump(rewrite(document), f, ensure_ascii=False, indent=1)
    f.write("\n")
