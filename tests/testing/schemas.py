"""Command output checked against its JSON Schema in docs/schemas/ (the vocabulary agents parse)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def _registry() -> Registry:
    resources = [(p.name, Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMAS.glob("*.schema.json")]
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validate(name: str, data: Any) -> None:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema, registry=REGISTRY, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(data), key=str)
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].absolute_path)}"
