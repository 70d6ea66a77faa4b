"""Gene rules are parsed one thread at a time once a model has been read from a file or the
store (CPython gh-106905); plain rules are built without a parser into the very tree COBRApy's
parser gives."""

from __future__ import annotations

import ast
import random
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


def _same_as_cobrapy(text: str) -> None:
    """`gpr_of(text)` is what COBRApy's `GPR.from_string(text)` gives: the same tree, the same
    genes, the same rule written back."""
    expected, got = GPR.from_string(text), gene_rules.gpr_of(text)
    assert (got.body is None) == (expected.body is None), text
    if expected.body is not None:
        assert ast.dump(got.body) == ast.dump(expected.body), text
    assert got.genes == expected.genes, text
    assert got.to_string() == expected.to_string(), text


def test_a_curated_models_rules_are_built_as_cobrapy_parses_them() -> None:
    model = cobra.io.read_sbml_model(str(Path(cobra.__file__).parent / "data" / "iJO1366.xml.gz"))
    rules = [r.gene_reaction_rule for r in model.reactions if r.gene_reaction_rule]
    for rule in rules:
        _same_as_cobrapy(rule)
    assert sum(gene_rules._plain_tree(rule) is not None for rule in rules) == len(rules)  # none left to the parser


def test_generated_rules_nest_as_pythons_parser_nests_them() -> None:
    """`or` binds looser than `and`; a parenthesised group stays a node; names with dots,
    colons, dashes, leading digits or a keyword's spelling come back unchanged."""
    rng = random.Random(7)
    names = ["b0001", "g.1", "1x", "x-y", "if", "a:b", "Z9", "_u", "None", "in.x"]

    def rule(depth: int = 0) -> str:
        if depth > 3 or rng.random() < 0.3:
            return rng.choice(names)
        text = rng.choice([" and ", " or ", "  or  "]).join(rule(depth + 1) for _ in range(rng.randint(2, 4)))
        return f"({text})" if rng.random() < 0.5 else text

    generated = [rule() for _ in range(2000)]
    for text in generated:
        _same_as_cobrapy(text)
    assert all(gene_rules._plain_tree(text) is not None for text in generated)


def test_anything_else_is_left_to_cobrapy() -> None:
    for text in ["", "  ", "a AND b", "a & b", "a | b", "a\tor b", "a\nor b", "a or", "(a", "a)", "a b",
                 "__x", "a__b", "()", "a or ()", "\u00e9 or b", "a and or b"]:
        assert gene_rules._plain_tree(text) is None, text
        assert gene_rules.gpr_of(text).to_string() == GPR.from_string(text).to_string(), text


def test_a_rule_set_on_a_reaction_in_a_model_gives_it_cobrapys_genes() -> None:
    ours, theirs = cobra.Model("ours"), cobra.Model("theirs")
    for model in (ours, theirs):
        reaction = cobra.Reaction("R1")
        reaction.add_metabolites({cobra.Metabolite("a_c", compartment="c"): -1})
        model.add_reactions([reaction])
    gene_rules.set_rule(ours.reactions.R1, "(g1 and g2) or g3")
    theirs.reactions.R1.gene_reaction_rule = "(g1 and g2) or g3"
    assert sorted(g.id for g in ours.genes) == sorted(g.id for g in theirs.genes) == ["g1", "g2", "g3"]
    assert {g.id for g in ours.reactions.R1.genes} == {"g1", "g2", "g3"}
    assert all(g.model is ours for g in ours.reactions.R1.genes)
    assert ours.reactions.R1.gene_reaction_rule == theirs.reactions.R1.gene_reaction_rule
    for model in (ours, theirs):  # the rule acts on the reaction's bounds as COBRApy's does
        with model:
            model.genes.g3.knock_out()
            assert model.reactions.R1.bounds == (0.0, 1000.0)  # g1 and g2 still carry it
            model.genes.g1.knock_out()
            assert model.reactions.R1.bounds == (0.0, 0.0)
