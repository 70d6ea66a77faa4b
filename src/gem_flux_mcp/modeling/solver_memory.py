"""Native solver memory of COBRApy models: optlang's GLPK problems are never freed by optlang
itself, so a model that will not be used again releases its problem here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cobra


def release_model(model: cobra.Model) -> None:
    """Free the native solver problem of a model that will not be used again.

    optlang's GLPK interface never frees its problem (its __del__ is disabled), so every discarded
    model would otherwise keep its LP in C memory for the life of the process.
    """
    interface = getattr(model.solver, "interface", None)
    if interface is not None and interface.__name__.endswith("glpk_interface"):
        import swiglpk

        problem = model.solver.problem
        if problem is not None:
            swiglpk.glp_delete_prob(problem)
            model.solver.problem = None  # the pointer is dead: never let it be used again
