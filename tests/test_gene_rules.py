"""Gene rules are parsed one thread at a time once a model has been read (CPython gh-106905)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cobra
from cobra.core.gene import GPR

from gem_flux_mcp.modeling import gene_rules, model_io


def test_a_rule_parse_waits_while_another_thread_parses(tmp_path: Path) -> None:
    model = cobra.Model("m")
    reaction = cobra.Reaction("R1")
    reaction.add_metabolites({cobra.Metabolite("a_c", compartment="c"): -1})
    reaction.gene_reaction_rule = "g1 or (g2 and g3)"
    model.add_reactions([reaction])
    path = tmp_path / "m.json"
    cobra.io.save_json_model(model, str(path))
    model_io.read_model(path, "json")  # what the server does before any parse in its threads

    parsed: list[str] = []
    parser = threading.Thread(target=lambda: parsed.append(str(GPR.from_string("g4 and (g5 or g6)"))))
    with gene_rules.held():
        parser.start()
        time.sleep(0.3)
        assert parsed == []  # waiting for the lock this thread holds
    parser.join(timeout=10)
    assert parsed == ["g4 and (g5 or g6)"]
    assert model_io.read_model(path, "json").reactions.R1.gene_reaction_rule == "g1 or (g2 and g3)"
