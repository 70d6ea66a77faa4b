"""`gem-flux community`: model files as the members of one community on a medium (MICOM's
cooperative tradeoff), without a server: community and member growth, who feeds whom; with
--knockouts each member removed in turn, with --minimal-medium the community's minimal medium,
with --limiting the medium compounds that limit its growth.
--out writes the cross-feeding table as TSV. `gem-flux community list` and `gem-flux community
delete ID` page through and delete the communities stored in a state folder (the workspace the
stdio server uses), as list_communities and delete_community do."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from gem_flux_mcp.cli.errors import answer, report_error
from gem_flux_mcp.cli.options import add_rule_option
from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ValidationError
from gem_flux_mcp.rules.catalog import (
    DEFAULT_TRADEOFF,
    LIMIT,
    MIN_MEMBER_GROWTH,
    OFFSET,
    TARGET_GROWTH_RATE,
    TRADEOFF,
    WORKERS,
)

STORED_COMMANDS = ("list", "delete")  # `gem-flux community list|delete ...`: the stored communities


def add_parser(sub: Any) -> None:
    com = sub.add_parser("community", help="model files as one community on a medium (MICOM): member growth, "
                                           "cross-feeding, knockouts; `community list|delete`: stored communities",
                         epilog="gem-flux community list [--offset N] [--limit N] and gem-flux community delete ID "
                                "page through and delete the communities stored in a state folder (--state-dir).")
    com.add_argument("models", nargs="+", metavar="MODEL", help="SBML (.xml) or COBRApy JSON models, the members")
    com.add_argument("--medium", required=True,
                     help="a predefined medium name (e.g. m9_glucose_aerobic) or a JSON file "
                          "{\"compounds\": {cpd: {\"bounds\": [lower, upper]}}}")
    com.add_argument("--abundances", default="", help="comma-separated relative abundances, one per model "
                                                      "(default equal)")
    add_rule_option(com, "--tradeoff", TRADEOFF, default=DEFAULT_TRADEOFF,
                    help="fraction of the maximal community growth kept (default 0.5)")
    com.add_argument("--knockouts", action="store_true", help="also remove each member in turn")
    com.add_argument("--limiting", action="store_true",
                     help="also the medium compounds that limit community growth (each uptake bound halved)")
    add_rule_option(com, "--minimal-medium", TARGET_GROWTH_RATE, metavar="GROWTH",
                    help="also the minimal medium (within --medium) for this community growth, 1/h")
    add_rule_option(com, "--min-member-growth", MIN_MEMBER_GROWTH, default=0.0,
                    help="with --minimal-medium: growth every member must reach, 1/h (default 0)")
    com.add_argument("--out", help="write the cross-feeding table as TSV here")
    com.add_argument("--samples", metavar="TSV",
                     help="many samples as one Dask batch: a table with a header `sample<TAB>member...` (members "
                          "named by their model ids) and one line of abundances per sample; needs --out-dir")
    com.add_argument("--out-dir", help="with --samples: the batch's output folder (a rerun resumes it)")
    where = com.add_mutually_exclusive_group()
    add_rule_option(where, "--workers", WORKERS, default=2, help="with --samples: local Dask worker processes "
                                                                "(default 2)")
    where.add_argument("--scheduler", help="with --samples: an existing Dask scheduler, e.g. tcp://HOST:8786")
    com.add_argument("--json", action="store_true", help="print the whole result as JSON")
    com.add_argument("--data-dir", help="reference data folder (default: $GEMFLUX_DATA_DIR)")
    com.add_argument("--cache-dir", help="cache folder (default: $GEMFLUX_CACHE_DIR)")


def run(args: argparse.Namespace) -> int:
    return answer(args, _community)


def stored_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gem-flux community",
                                     description="the communities stored in a state folder (the stdio server's "
                                                 "workspace)")
    sub = parser.add_subparsers(dest="stored_command", required=True)
    listing = sub.add_parser("list", help="a page of the stored communities, oldest first")
    add_rule_option(listing, "--offset", OFFSET, default=0, help="first community of the page (default 0)")
    add_rule_option(listing, "--limit", LIMIT, default=25, help="communities per page (default 25)")
    deleting = sub.add_parser("delete", help="delete a stored community and the results recorded with it")
    deleting.add_argument("community_id", metavar="ID", help="the community's id")
    for each in (listing, deleting):
        each.add_argument("--state-dir", help="state folder (default: $GEMFLUX_STATE_DIR)")
        each.add_argument("--database-url", help="PostgreSQL state database (default: $GEMFLUX_DATABASE_URL)")
        each.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    return parser


def run_stored(argv: Sequence[str]) -> int:
    """`gem-flux community list|delete ...` (argv from `list` or `delete` on)."""
    from gem_flux_mcp.server.access import LOCAL_WORKSPACE
    from gem_flux_mcp.services.community import stored
    from gem_flux_mcp.store.store import Store

    try:
        args = stored_parser().parse_args(argv)
        settings = Settings.resolve(state_dir=args.state_dir, database_url=args.database_url)
        store = Store(settings.state_dir, database_url=settings.database_url)
        try:
            if args.stored_command == "list":
                listed = stored.list_communities(store, LOCAL_WORKSPACE, args.offset, args.limit)
                result = listed.model_dump(mode="json")
                lines = [f"{listed.total_communities} communities" + (
                    f" (from {listed.offset}; next page --offset {listed.next_offset})" if listed.next_offset else "")]
                lines += [f"  {c.community_id}: {c.num_members} members ({', '.join(c.member_ids)}), "
                          f"{c.num_results} results, created {c.created_at}" for c in listed.communities]
            else:
                deleted = stored.delete_community(store, LOCAL_WORKSPACE, args.community_id)
                result = deleted.model_dump(mode="json")
                lines = [f"deleted {deleted.deleted_community_id} and its {deleted.deleted_results} results"]
        finally:
            store.close()
    except GemFluxError as exc:
        return report_error("community", exc)
    print(json.dumps(result, indent=1) if args.json else "\n".join(lines))
    return 0


def _abundances(text: str) -> list[object] | None:
    if not text.strip():
        return None
    values: list[object] = []
    for part in text.split(","):
        try:
            values.append(float(part))
        except ValueError as exc:
            raise ValidationError(ErrorCode.INVALID_ABUNDANCES, f"--abundances: {part.strip()!r} is not a number.",
                                  details={"provided": text[:80]}) from exc
    return values


def _members(paths: list[str]) -> dict[str, str]:
    """{member id (the model's id, else its path): COBRApy JSON}, each member checked."""
    from cobra.io import to_json

    from gem_flux_mcp.cli.analysis_commands import _load
    from gem_flux_mcp.modeling.community import check_member

    members: dict[str, str] = {}
    for path in paths:
        model = _load(path)
        member_id = model.id if model.id and model.id not in members else path
        check_member(member_id, model)
        members[member_id] = to_json(model)
    return members


def _samples(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    """--samples: every sample's community grown as one Dask task (services/community/samples.py)."""
    from pathlib import Path

    from gem_flux_mcp.cli.analysis_commands import _medium
    from gem_flux_mcp.services.community.samples import read_abundance_table, run_samples

    single = [flag for flag, given in (("--abundances", args.abundances.strip()), ("--knockouts", args.knockouts),
                                       ("--minimal-medium", args.minimal_medium is not None),
                                       ("--limiting", args.limiting), ("--out", args.out)) if given]
    if single:
        raise ValidationError(ErrorCode.BOTH_INPUTS_PROVIDED,
                              f"--samples grows each sample's community; {', '.join(single)} apply to one community.",
                              details={"options": single})
    if not args.out_dir:
        raise ValidationError(ErrorCode.NO_INPUT_PROVIDED, "--samples needs --out-dir, the batch's output folder.")
    members = _members(args.models)
    samples = read_abundance_table(Path(args.samples), list(members))
    name, medium = _medium(args.medium, settings)
    outcome = run_samples(members, samples, medium, args.tradeoff, Path(args.out_dir).resolve(),
                          workers=args.workers, scheduler=args.scheduler)
    counts = ", ".join(f"{n} {status}" for status, n in sorted(outcome.counts.items()))
    lines = [f"{len(outcome.rows)} samples of {len(members)} members on {name} ({counts}) in {outcome.seconds:.1f} s "
             f"on {outcome.cluster}"]
    lines += [f"  {r['sample']}: " + (f"growth {r['community_growth']:.4g} /h, {r['growing_members']} of "
                                      f"{r['members']} growing, {r['cross_feedings']} cross-feedings"
                                      + (" (done before)" if r.get("skipped") else "")
                                      if r["status"] == "ok" else f"failed: {r['error_code']}: {r['error_message']}")
              for r in outcome.rows[:50]]
    lines.append(f"wrote {outcome.files['samples_tsv']}")
    return {"lines": lines, "samples": outcome.rows, "counts": outcome.counts, "files": outcome.files,
            "cluster": outcome.cluster, "seconds": outcome.seconds,
            "unfinished": outcome.cancelled or any(r["status"] != "ok" for r in outcome.rows)}


def _community(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from cobra.io import to_json

    from gem_flux_mcp.cli.analysis_commands import _load, _medium, _write
    from gem_flux_mcp.modeling.community import (
        Member,
        build_micom_community,
        check_member,
        cooperative_growth,
        limiting_compounds,
        member_knockouts,
        minimal_community_medium,
        put_community_on_medium,
        relative_abundances,
    )
    from gem_flux_mcp.services.community.growth import CROSS_FEEDING_COLUMNS

    if args.samples:
        return _samples(args, settings)
    shares = relative_abundances(_abundances(args.abundances), len(args.models))
    members: list[Member] = []
    for path, share in zip(args.models, shares, strict=True):
        model = _load(path)
        member_id = model.id or path
        if any(m.model_id == member_id for m in members):
            member_id = path
        check_member(member_id, model)
        members.append(Member(member_id, share, to_json(model)))
    name, medium = _medium(args.medium, settings)
    community, taxa = build_micom_community(members, "community")
    applied, missing = put_community_on_medium(community, medium)
    if not any(medium[c][0] < 0 for c in applied):
        raise ValidationError(ErrorCode.MEDIA_INCOMPATIBLE, f"No member can take up any compound of medium {name}.",
                              details={"medium": name})
    grown = cooperative_growth(community, taxa, args.tradeoff)
    lines = [f"community of {len(members)} on {name} (tradeoff {args.tradeoff:g}): growth {grown.community_growth:.4g}"
             " /h"]
    lines += [f"  {m['member']}: abundance {m['abundance']:.3g}, growth {m['growth_rate']:.4g} /h"
              for m in grown.members]
    lines += [f"  {c['name']} ({c['compound_id']}): {c['from_member']} -> {c['to_member']} {c['flux']:.4g}"
              for c in grown.cross_feeding[:20]]
    knocked = None
    if args.knockouts:
        knocked = member_knockouts(community, taxa, None, args.tradeoff)
        lines += [f"  without {r['removed']}: {r['member']} {r['growth_before']:.4g} -> {r['growth_after']:.4g} /h"
                  for r in sorted(knocked.rows, key=lambda r: r["change"])[:20]]
    minimal = None
    if args.minimal_medium is not None:
        minimal = minimal_community_medium(community, args.minimal_medium, args.min_member_growth).compounds
        lines.append(f"  minimal medium for {args.minimal_medium:g} /h: "
                     + ", ".join(f"{c['name']} {c['uptake']:.4g}" for c in minimal))
    limiting = None
    if args.limiting:
        limiting = limiting_compounds(community, args.tradeoff).rows
        lines += [f"  halving {r['name']} ({r['compound_id']}): growth {r['growth_halved']:.4g} /h "
                  f"(-{100 * r['relative_drop']:.3g} %)" for r in limiting if r["limiting"]][:20]
    lines += _write(args.out, CROSS_FEEDING_COLUMNS, grown.cross_feeding)
    return {"lines": lines, "community_growth": grown.community_growth, "members": grown.members,
            "cross_feeding": grown.cross_feeding, "exchanges": grown.exchanges, "medium": grown.environment,
            "medium_missing": missing, "knockouts": knocked.rows if knocked else None, "minimal_medium": minimal,
            "limiting_compounds": limiting}
