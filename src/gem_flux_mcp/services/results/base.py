"""The base of every result model, and the output schema of a model. (The error envelope is
built in one place, `errors.py`.)"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """Base of every result model (and of the models nested in them)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")
