"""The kinds of argument rule: a number in a range, one of a set of values, a bounded text, a
non-empty list.

A rule is declared once (rules/catalog.py) and used three ways:
- as `Annotated` metadata of a tool argument: the published input schema gets the rule's range,
  enum or length, and a value outside them is refused by pydantic with the rule itself attached
  (`RULE_ERROR`), so the server answers with the rule's own error code and hints;
- by a service or library function at its entry: `RULE.check(value)` returns the value as used
  or raises the rule's ValidationError;
- by the CLI: `type=RULE.parse` reads the command-line text and refuses it the same way.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

RULE_ERROR = "gem_flux_rule"  # pydantic error type of a refusal by a rule; its context holds the rule

# pydantic error types of a published constraint (range, enum, length), as opposed to a wrong type
CONSTRAINT_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal", "literal_error",
                               "enum", "string_too_long", "string_too_short", "too_short", "too_long",
                               "finite_number"})


def shown(value: object, limit: int = 40) -> object:
    """A refused value as an error shows it: JSON scalars as they are (text cut), others as repr."""
    if isinstance(value, str):
        return value[:limit]
    if value is None or isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return repr(value)[:limit]


@dataclass(frozen=True, kw_only=True)
class Rule(ABC):
    """What every rule has: the argument's name, the error code of a refusal and its hints."""

    name: str
    code: ErrorCode
    suggestions: tuple[str, ...] = ()
    example: Mapping[str, Any] | None = None  # an example call; "{model_id}" is filled from the context
    nullable: bool = False  # None is allowed (and means "not given")

    @abstractmethod
    def problem(self, value: object) -> tuple[ErrorCode, str] | None:
        """(code, message) when `value` breaks the rule, else None."""

    @abstractmethod
    def details(self, value: object) -> dict[str, Any]:
        """What an error about `value` says besides its message."""

    @abstractmethod
    def constrain(self, schema: dict[str, Any]) -> None:
        """Add the rule's range, enum or length to pydantic's schema of the plain type."""

    def normalised(self, value: Any) -> Any:
        """The value as used once accepted."""
        return value

    def check(self, value: object, **context: str) -> Any:
        """The value as used, or the rule's ValidationError."""
        if value is None and self.nullable:
            return None
        found = self.problem(value)
        if found is not None:
            raise self._error(value, *found, context)
        return self.normalised(value)

    def error(self, value: object, **context: str) -> ValidationError:
        """The refusal of `value` (a value pydantic refused for breaking the published constraint)."""
        code, message = self.problem(value) or (self.code, f"{self.name} is not valid; got {shown(value)!r}.")
        return self._error(value, code, message, context)

    def refusal(self, value: object, message: str, **context: str) -> ValidationError:
        """The rule's error for a refusal a caller decides itself (a check beyond the rule's own)."""
        return self._error(value, self.code, message, context)

    def parse(self, text: str) -> Any:
        """An argparse `type=`: the command-line text read and checked (a refusal raises the
        rule's ValidationError, which the CLI reports with its code)."""
        return self.check(self.from_text(text))

    def from_text(self, text: str) -> object:
        return text

    def _error(self, value: object, code: ErrorCode, message: str, context: Mapping[str, str]) -> ValidationError:
        example = None
        if self.example is not None:
            example = _filled(self.example, {"model_id": context.get("model_id") or "E_coli.draft"})
        return ValidationError(code, message, details=self.details(value), suggestions=list(self.suggestions),
                               example_call=example)

    # pydantic: `Annotated[float, RULE]` publishes the constraint and refuses with the rule attached
    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        target: dict[str, Any] = schema  # type: ignore[assignment]
        while target.get("type") in {"nullable", "default"}:
            target = target["schema"]
        self.constrain(target)
        return core_schema.no_info_wrap_validator_function(self._validate, schema)

    def _validate(self, value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except PydanticValidationError as exc:
            if all(err["type"] in CONSTRAINT_ERRORS for err in exc.errors()):
                raise PydanticCustomError(RULE_ERROR, "{message}",
                                          {"message": self.error(value).message, "rule": self}) from None
            raise


def _filled(example: Mapping[str, Any], values: Mapping[str, str]) -> dict[str, Any]:
    def fill(item: Any) -> Any:
        if isinstance(item, str):
            return item.format_map(values) if "{" in item else item
        if isinstance(item, Mapping):
            return {k: fill(v) for k, v in item.items()}
        if isinstance(item, list):
            return [fill(v) for v in item]
        return item
    return fill(example)  # type: ignore[no-any-return]


@dataclass(frozen=True, kw_only=True)
class Number(Rule):
    """A finite number (or whole number) within bounds; `gt`/`lt` exclude the bound, `ge`/`le`
    include it. `below_code` is the code for a value under the lower bound, when it differs."""

    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    integer: bool = False
    unit: str = ""  # e.g. "1/h", said after the range
    default: float | None = None
    typical: tuple[float, float] | None = None
    below_code: ErrorCode | None = None

    @property
    def low(self) -> float | None:
        return self.gt if self.gt is not None else self.ge

    @property
    def high(self) -> float | None:
        return self.lt if self.lt is not None else self.le

    def range_text(self) -> str:
        parts = []
        if self.gt is not None:
            parts.append(f"> {self.gt:g}")
        if self.lt is not None:
            parts.append(f"< {self.lt:g}")
        if self.ge is not None and self.le is not None and not parts:
            return f"from {self.ge:g} to {self.le:g}"
        if self.ge is not None:
            parts.insert(0, f">= {self.ge:g}")
        if self.le is not None:
            parts.append(f"<= {self.le:g}")
        return " and ".join(parts)

    def problem(self, value: object) -> tuple[ErrorCode, str] | None:
        kind = "an integer" if self.integer else "a number"
        unit = f" ({self.unit})" if self.unit else ""
        message = f"{self.name} must be {kind} {self.range_text()}{unit}; got {value!r}."
        if isinstance(value, bool) or not isinstance(value, int if self.integer else int | float):
            return self.code, message
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return self.code, message
        if (self.gt is not None and number <= self.gt) or (self.ge is not None and number < self.ge):
            return self.below_code or self.code, message
        if (self.lt is not None and number >= self.lt) or (self.le is not None and number > self.le):
            return self.code, message
        return None

    def normalised(self, value: Any) -> Any:
        return int(value) if self.integer else float(value)

    def details(self, value: object) -> dict[str, Any]:
        details: dict[str, Any] = {"provided": shown(value), "valid_range": [self.low, self.high]}
        if self.gt is not None:
            details["minimum_exclusive"] = True
        if self.lt is not None:
            details["maximum_exclusive"] = True
        if self.default is not None:
            details["default"] = self.default
        if self.typical is not None:
            details["typical_range"] = list(self.typical)
        return details

    def constrain(self, schema: dict[str, Any]) -> None:
        for key in ("gt", "ge", "lt", "le"):
            bound = getattr(self, key)
            if bound is not None:
                schema[key] = int(bound) if self.integer else bound  # published as declared (0 or 1000.0)

    def from_text(self, text: str) -> object:
        try:
            return int(text) if self.integer else float(text)
        except ValueError:
            return text


@dataclass(frozen=True, kw_only=True)
class Choice(Rule):
    """One of a fixed set of values. `numbers_as_text`: '11' is read as 11 (the CLI gives text)."""

    values: tuple[Any, ...]
    numbers_as_text: bool = False

    def problem(self, value: object) -> tuple[ErrorCode, str] | None:
        if isinstance(value, bool) or value not in self.values:
            allowed = ", ".join(str(v) for v in self.values)
            return self.code, f"{self.name} must be one of {allowed}; got {shown(value)!r}."
        return None

    def details(self, value: object) -> dict[str, Any]:
        details: dict[str, Any] = {"provided": shown(value), "allowed": list(self.values)}
        lowered = str(value).lower().replace("-", "").replace("_", "")
        guess = [v for v in self.values if isinstance(v, str) and lowered and
                 (v.lower() == lowered or lowered in v.lower())]
        if guess:
            details["did_you_mean"] = guess[0]
        return details

    def constrain(self, schema: dict[str, Any]) -> None:
        return  # the Literal type publishes the values

    def check(self, value: object, **context: str) -> Any:
        if self.numbers_as_text:
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value.strip())
            elif isinstance(value, float) and value.is_integer():
                value = int(value)
        return super().check(value, **context)


@dataclass(frozen=True, kw_only=True)
class Text(Rule):
    """A text, stripped, not blank, at most `max_length` characters, no NUL byte.
    `blank_code`/`too_long_code` when those refusals have codes of their own."""

    max_length: int
    blank_code: ErrorCode | None = None
    too_long_code: ErrorCode | None = None
    blank_hint: str = ""

    def problem(self, value: object) -> tuple[ErrorCode, str] | None:
        if not isinstance(value, str):
            return self.blank_code or self.code, f"{self.name} must be a text; got {shown(value)!r}."
        if "\x00" in value:
            return self.code, f"{self.name} contains a NUL byte."
        if len(value) > self.max_length:
            return (self.too_long_code or self.code,
                    f"{self.name} is {len(value)} characters long; the maximum is {self.max_length}.")
        if not value.strip():
            return self.blank_code or self.code, f"{self.name} must not be empty{self.blank_hint}."
        return None

    def normalised(self, value: Any) -> Any:
        return value.strip()

    def details(self, value: object) -> dict[str, Any]:
        return {"argument": self.name, "provided": shown(value, 60), "max_length": self.max_length,
                **({"length": len(value)} if isinstance(value, str) else {})}

    def constrain(self, schema: dict[str, Any]) -> None:
        schema.update(min_length=1, max_length=self.max_length)


@dataclass(frozen=True, kw_only=True)
class Items(Rule):
    """A list of at least `min_items` (and at most `max_items`) entries."""

    min_items: int = 1
    max_items: int | None = None
    what: str = "entries"

    def problem(self, value: object) -> tuple[ErrorCode, str] | None:
        if not isinstance(value, list | tuple) or len(value) < self.min_items or \
                (self.max_items is not None and len(value) > self.max_items):
            most = f" and at most {self.max_items}" if self.max_items is not None else ""
            return self.code, f"{self.name} must be a list of at least {self.min_items}{most} {self.what}."
        return None

    def details(self, value: object) -> dict[str, Any]:
        return {"provided": value if isinstance(value, list) and len(value) <= 20 else shown(value, 80)}

    def constrain(self, schema: dict[str, Any]) -> None:
        schema["min_length"] = self.min_items
        if self.max_items is not None:
            schema["max_length"] = self.max_items
