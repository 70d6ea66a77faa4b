"""Gene rules are parsed one thread at a time once a model has been read from a file or the
store (CPython gh-106905)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import cobra
from cobra.core.gene import GPR

from gem_flux_mcp.modeling import gene_rules, model_io


def model_file(folder: Path, rule: str) -> Path:
    """A one-reaction COBRApy JSON model whose reaction has `rule`."""
    model = cobra.Model("m")
    reaction = cobra.Reaction("R1")
    reaction.add_metabolites({cobra.Metabolite("a_c", compartment="c"): -1})
    reaction.gene_reaction_rule = rule
    model.add_reactions([reaction])
    path = folder / "m.json"
    cobra.io.save_json_model(model, str(path))
    return path


def test_a_rule_parse_waits_while_another_thread_parses(tmp_path: Path) -> None:
    path = model_file(tmp_path, "g1 or (g2 and g3)")
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


def test_both_ways_a_model_is_loaded_install_the_lock(tmp_path: Path) -> None:
    """Each in a fresh process, where nothing else has installed it: a model file read, and a
    stored model's JSON parsed (what a checkout does)."""
    path = model_file(tmp_path, "g1 or g2")
    check = "import cobra.core.gene as g; assert getattr(g.ast_parse, '_gemflux_one_thread_at_a_time', False)"
    loads = {
        "file": f"from pathlib import Path; from gem_flux_mcp.modeling.model_io import read_model; "
                f"read_model(Path({str(path)!r}), 'json')",
        "store": f"from pathlib import Path; from gem_flux_mcp.store.model_files import parse_model_file; "
                 f"parse_model_file(Path({str(path)!r}).read_bytes(), None, 'm.json')",
    }
    for name, load in loads.items():
        before = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert before.returncode != 0, name  # not installed by importing COBRApy alone
        after = subprocess.run([sys.executable, "-c", f"{load}; {check}"], capture_output=True, text=True)
        assert after.returncode == 0, (name, after.stderr[-2000:])
