"""The central-metabolism map: glycolysis, the pentose phosphate pathway, the TCA cycle and
glyoxylate shunt, anaplerosis, overflow/fermentation, respiration and the main exchanges, laid
out after Escher's E. coli core map (BiGG ids). Nodes are metabolites (BiGG id + compartment);
edges are reactions named by their BiGG ids, whose ModelSEED counterparts are found through the
BiGG aliases of the ModelSEED database (mapping.py). An edge is drawn from `source` to `target`:
a positive flux on the map runs that way, whatever direction the model writes the reaction in.

Why not Escher itself: the `escher` 1.8.1 wheel ships its JavaScript (escher.min.js) but not the
maps, which it downloads from escher.github.io at run time (the dashboard must work offline); it
draws in the browser with scripts (the dashboard's pages carry none, CSP `default-src 'none'`); and
it requires `pytest<9` and `ipywidgets<8` at run time. Drawing this one map as server-side SVG
costs ~200 lines and no dependency.
"""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT = 1300, 1345
CELL = (150.0, 105.0, 1150.0, 1322.0)  # the cell boundary: x0, y0, x1, y1


@dataclass(frozen=True)
class Node:
    key: str  # BiGG metabolite id + '_c' (cytosol) or '_e' (outside)
    label: str
    x: float
    y: float
    label_at: str = "right"  # right | left | above | below

    @property
    def bigg(self) -> str:
        return self.key.rsplit("_", 1)[0]

    @property
    def compartment(self) -> str:
        """The model compartment: c0 or e0."""
        return "e0" if self.key.endswith("_e") else "c0"


@dataclass(frozen=True)
class Edge:
    key: str  # the BiGG id shown
    bigg: tuple[str, ...]  # BiGG ids whose ModelSEED aliases stand for it (variants, isozymes)
    source: str
    target: str
    pathway: str
    bend: tuple[float, float] | None = None  # control point of a curved edge
    joins: tuple[str, ...] = ()  # other metabolites it consumes or makes, drawn to its middle
    model_ids: tuple[str, ...] = ()  # model reaction ids that stand for it as they are (ATPM_c0)
    seed: tuple[str, ...] = ()  # ModelSEED ids that reactions.tsv gives no BiGG alias of this edge (RPI rxn00777)
    flip_label: bool = False  # write its label on the other side of the arrow


@dataclass(frozen=True)
class Exchange:
    compound: str  # BiGG compound id
    node: str  # the outside node it exchanges
    x: float  # where the arrow starts, outside
    y: float

    @property
    def key(self) -> str:
        return f"EX_{self.compound}_e"


def _n(key: str, label: str, x: float, y: float, label_at: str = "right") -> Node:
    return Node(key, label, x, y, label_at)


NODES: tuple[Node, ...] = (
    # outside
    _n("glc__D_e", "glucose", 480, 50), _n("o2_e", "O2", 1230, 1060, "above"),
    _n("co2_e", "CO2", 1230, 700, "above"), _n("nh4_e", "NH4+", 1230, 560, "above"),
    _n("pi_e", "phosphate", 1230, 620, "above"), _n("ac_e", "acetate", 1230, 950, "above"),
    _n("etoh_e", "ethanol", 1230, 880, "above"), _n("lac__D_e", "D-lactate", 70, 880, "above"),
    _n("for_e", "formate", 70, 965, "above"), _n("succ_e", "succinate", 70, 1245, "above"),
    # glycolysis
    _n("glc__D_c", "glucose", 330, 150, "left"), _n("g6p_c", "G6P", 480, 190, "left"),
    _n("f6p_c", "F6P", 480, 285, "left"), _n("fdp_c", "FBP", 480, 375, "left"),
    _n("dhap_c", "DHAP", 330, 430, "left"), _n("g3p_c", "G3P", 480, 465),
    _n("13dpg_c", "1,3-BPG", 480, 545, "left"), _n("3pg_c", "3PG", 480, 625, "left"),
    _n("2pg_c", "2PG", 480, 705, "left"), _n("pep_c", "PEP", 480, 790, "left"),
    _n("pyr_c", "pyruvate", 480, 880, "left"), _n("accoa_c", "acetyl-CoA", 640, 930, "above"),
    # pentose phosphate pathway
    _n("6pgl_c", "6P-gluconolactone", 640, 190, "above"), _n("6pgc_c", "6P-gluconate", 810, 190, "above"),
    _n("ru5p__D_c", "Ru5P", 940, 265), _n("xu5p__D_c", "Xu5P", 1030, 355), _n("r5p_c", "R5P", 860, 355, "left"),
    _n("s7p_c", "S7P", 860, 445, "left"), _n("e4p_c", "E4P", 740, 500, "below"),
    # TCA cycle (a circle of radius 150 around (640, 1130)) and glyoxylate shunt
    _n("oaa_c", "oxaloacetate", 589, 989, "left"), _n("cit_c", "citrate", 691, 989),
    _n("acon_C_c", "cis-aconitate", 770, 1055, "left"), _n("icit_c", "isocitrate", 788, 1156),
    _n("akg_c", "2-oxoglutarate", 736, 1245), _n("succoa_c", "succinyl-CoA", 640, 1280, "below"),
    _n("succ_c", "succinate", 544, 1245, "left"), _n("fum_c", "fumarate", 492, 1156, "left"),
    _n("mal__L_c", "malate", 510, 1055, "left"), _n("glx_c", "glyoxylate", 640, 1130, "below"),
    # overflow and fermentation
    _n("lac__D_c", "D-lactate", 330, 880, "above"), _n("for_c", "formate", 330, 965, "below"),
    _n("acald_c", "acetaldehyde", 790, 880, "above"), _n("etoh_c", "ethanol", 940, 880, "above"),
    _n("actp_c", "acetyl-P", 790, 950, "below"), _n("ac_c", "acetate", 940, 950, "below"),
    # respiration, energy, uptake of nitrogen and phosphate, CO2
    _n("o2_c", "O2", 1095, 1060, "above"), _n("h2o_c", "H2O", 960, 1060, "above"),
    _n("nadh_c", "NADH", 960, 1140, "left"), _n("q8h2_c", "quinol", 1095, 1140),
    _n("adp_c", "ADP", 960, 1220, "left"), _n("atp_c", "ATP", 1095, 1220),
    _n("nh4_c", "NH4+", 1070, 560, "left"), _n("pi_c", "phosphate", 1070, 620, "left"),
    _n("co2_c", "CO2", 1070, 700, "left"),
)

EDGES: tuple[Edge, ...] = (
    # glucose in
    Edge("GLCpts", ("GLCpts",), "glc__D_e", "g6p_c", "uptake", bend=(520, 120)),
    Edge("GLCt", ("GLCt2", "GLCt2pp", "GLCabcpp", "GLCt1"), "glc__D_e", "glc__D_c", "uptake"),
    Edge("HEX1", ("HEX1",), "glc__D_c", "g6p_c", "glycolysis"),
    # glycolysis / gluconeogenesis
    Edge("PGI", ("PGI",), "g6p_c", "f6p_c", "glycolysis"),
    Edge("PFK", ("PFK",), "f6p_c", "fdp_c", "glycolysis", bend=(505, 330)),
    Edge("FBP", ("FBP",), "fdp_c", "f6p_c", "glycolysis", bend=(445, 330)),
    Edge("FBA", ("FBA",), "fdp_c", "g3p_c", "glycolysis", joins=("dhap_c",)),
    Edge("TPI", ("TPI",), "dhap_c", "g3p_c", "glycolysis"),
    Edge("GAPD", ("GAPD",), "g3p_c", "13dpg_c", "glycolysis"),
    Edge("PGK", ("PGK",), "13dpg_c", "3pg_c", "glycolysis"),
    Edge("PGM", ("PGM",), "3pg_c", "2pg_c", "glycolysis"),
    Edge("ENO", ("ENO",), "2pg_c", "pep_c", "glycolysis"),
    Edge("PYK", ("PYK",), "pep_c", "pyr_c", "glycolysis"),
    Edge("PPS", ("PPS",), "pyr_c", "pep_c", "glycolysis", bend=(525, 835)),
    Edge("PDH", ("PDH",), "pyr_c", "accoa_c", "glycolysis"),
    # pentose phosphate pathway
    Edge("G6PDH2r", ("G6PDH2r",), "g6p_c", "6pgl_c", "pentose phosphate"),
    Edge("PGL", ("PGL",), "6pgl_c", "6pgc_c", "pentose phosphate"),
    Edge("GND", ("GND",), "6pgc_c", "ru5p__D_c", "pentose phosphate"),
    Edge("RPE", ("RPE",), "ru5p__D_c", "xu5p__D_c", "pentose phosphate"),
    Edge("RPI", ("RPI",), "ru5p__D_c", "r5p_c", "pentose phosphate", seed=("rxn00777",)),
    Edge("TKT1", ("TKT1",), "r5p_c", "s7p_c", "pentose phosphate", joins=("xu5p__D_c",), seed=("rxn01200",)),
    Edge("TALA", ("TALA",), "s7p_c", "e4p_c", "pentose phosphate", joins=("g3p_c",)),
    Edge("TKT2", ("TKT2",), "e4p_c", "f6p_c", "pentose phosphate", bend=(640, 360)),
    # TCA cycle
    Edge("CS", ("CS",), "accoa_c", "cit_c", "TCA cycle", joins=("oaa_c",)),
    Edge("ACONT", ("ACONT",), "cit_c", "icit_c", "TCA cycle", bend=(850, 1040)),
    Edge("ACONTa", ("ACONTa",), "cit_c", "acon_C_c", "TCA cycle"),
    Edge("ACONTb", ("ACONTb",), "acon_C_c", "icit_c", "TCA cycle"),
    Edge("ICDHyr", ("ICDHyr",), "icit_c", "akg_c", "TCA cycle"),
    Edge("AKGDH", ("AKGDH",), "akg_c", "succoa_c", "TCA cycle"),
    Edge("SUCOAS", ("SUCOAS",), "succoa_c", "succ_c", "TCA cycle"),
    Edge("SUCDi", ("SUCDi", "SUCD1i"), "succ_c", "fum_c", "TCA cycle", bend=(470, 1220)),
    Edge("FRD", ("FRD2", "FRD3", "FRD7"), "fum_c", "succ_c", "TCA cycle", bend=(568, 1180)),
    Edge("FUM", ("FUM",), "fum_c", "mal__L_c", "TCA cycle"),
    Edge("MDH", ("MDH",), "mal__L_c", "oaa_c", "TCA cycle"),
    Edge("ICL", ("ICL",), "icit_c", "glx_c", "glyoxylate shunt", joins=("succ_c",)),
    Edge("MALS", ("MALS",), "glx_c", "mal__L_c", "glyoxylate shunt", joins=("accoa_c",), flip_label=True),
    # anaplerosis
    Edge("PPC", ("PPC",), "pep_c", "oaa_c", "anaplerosis", bend=(665, 800)),
    Edge("PPCK", ("PPCK",), "oaa_c", "pep_c", "anaplerosis", bend=(720, 780)),
    Edge("ME1", ("ME1", "ME2"), "mal__L_c", "pyr_c", "anaplerosis", bend=(430, 990)),
    # overflow and fermentation
    Edge("LDH_D", ("LDH_D",), "pyr_c", "lac__D_c", "fermentation"),
    Edge("PFL", ("PFL",), "pyr_c", "for_c", "fermentation"),
    Edge("PTAr", ("PTAr",), "accoa_c", "actp_c", "fermentation"),
    Edge("ACKr", ("ACKr",), "actp_c", "ac_c", "fermentation"),
    Edge("ACALD", ("ACALD",), "accoa_c", "acald_c", "fermentation"),
    Edge("ALCD2x", ("ALCD2x",), "acald_c", "etoh_c", "fermentation"),
    # transport out and in
    Edge("D_LACt2", ("D_LACt2", "D_LACt2pp"), "lac__D_c", "lac__D_e", "transport"),
    Edge("FORt", ("FORt", "FORtppi", "FORt2", "FORt2pp"), "for_c", "for_e", "transport"),
    Edge("ACt2r", ("ACt2r", "ACt2rpp"), "ac_c", "ac_e", "transport"),
    Edge("ETOHt", ("ETOHt2r", "ETOHt", "ETOHtrpp"), "etoh_c", "etoh_e", "transport"),
    Edge("SUCCt", ("SUCCt2_2", "SUCCt3", "SUCCt2_2pp", "SUCCt3pp", "SUCCt2b"), "succ_c", "succ_e", "transport",
         bend=(330, 1300)),
    Edge("NH4t", ("NH4t", "NH4tpp"), "nh4_e", "nh4_c", "transport"),
    Edge("PIt2r", ("PIt2r", "PIt2rpp"), "pi_e", "pi_c", "transport"),
    Edge("CO2t", ("CO2t", "CO2tpp"), "co2_c", "co2_e", "transport"),
    Edge("O2t", ("O2t", "O2tpp"), "o2_e", "o2_c", "transport"),
    # respiration and energy
    Edge("NADH16", ("NADH16", "NADH16pp", "NADH6", "NADH5", "NADH17pp", "NADH10"), "nadh_c", "q8h2_c",
         "respiration"),
    Edge("CYTBD", ("CYTBD", "CYTBDpp", "CYTBO3", "CYTBO3_4pp", "CYTBD2pp"), "o2_c", "h2o_c", "respiration",
         joins=("q8h2_c",)),
    Edge("ATPS4r", ("ATPS4r", "ATPS4rpp"), "adp_c", "atp_c", "respiration"),
    Edge("ATPM", ("ATPM",), "atp_c", "adp_c", "maintenance", bend=(1027, 1275), model_ids=("ATPM_c0",)),
)

EXCHANGES: tuple[Exchange, ...] = (
    Exchange("glc__D", "glc__D_e", 480, 2), Exchange("o2", "o2_e", 1296, 1060),
    Exchange("co2", "co2_e", 1296, 700), Exchange("nh4", "nh4_e", 1296, 560),
    Exchange("pi", "pi_e", 1296, 620), Exchange("ac", "ac_e", 1296, 950),
    Exchange("etoh", "etoh_e", 1296, 880), Exchange("lac__D", "lac__D_e", 4, 880),
    Exchange("for", "for_e", 4, 965), Exchange("succ", "succ_e", 4, 1245),
)

NODE_BY_KEY = {n.key: n for n in NODES}


def check_layout() -> None:
    """Every edge and exchange names nodes of the map (the tests call this)."""
    for edge in EDGES:
        for key in (edge.source, edge.target, *edge.joins):
            assert key in NODE_BY_KEY, f"{edge.key}: unknown node {key}"
    for exchange in EXCHANGES:
        assert exchange.node in NODE_BY_KEY, exchange.key
    keys = [e.key for e in EDGES] + [x.key for x in EXCHANGES]
    assert len(keys) == len(set(keys)), "edge keys must be unique"
