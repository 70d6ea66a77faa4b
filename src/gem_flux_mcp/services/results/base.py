"""The base of every result model, the error envelope, and the output schema of a model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """Base of every result model (and of the models nested in them)."""

    model_config = ConfigDict(extra="forbid")


class Envelope(BaseModel):
    """The error envelope (returned with isError: true)."""

    success: Literal[False]
    error_type: str
    error_code: str
    jsonrpc_error_code: int
    message: str
    details: dict[str, Any]
    suggestions: list[str]
    valid_next_steps: list[str]
    example_call: dict[str, Any] | None
    tool_name: str | None
    timestamp: str


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")
