"""What tool modules share: annotation presets and the common parameter types."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
CREATES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
DELETES = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}

ModelId = Annotated[str, Field(description="Id of a stored model, e.g. 'E_coli.draft' (see list_models)")]
MediaId = Annotated[str, Field(description="Id of a medium, predefined (e.g. 'glucose_minimal_aerobic') or built")]
