"""The ``bitserial:`` section of an arch config (family: bitserial).

One section describes DaDianNao and the value-aware designs built on its tiles (Stripes,
ShapeShifter / Dynamic Stripes, Loom, Bit-Pragmatic, Laconic), plus the Bit-Tactical weight
scheduler and Diffy's delta activations as switches on the designs that have them in DNNsim;
``design`` selects the step-cost rule. Each design's rule is stated in :mod:`.fast`.
Defaults are the DNNsim examples' values (which follow the papers' 16-tile organisation).
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

DNNSIM = "DNNsim (isakedo/DNNsim 4748a60) examples, the papers' 16-tile organisation"
DADN = "Chen et al., DaDianNao, MICRO 2014 (16 tiles x 16 filters x 16 lanes, 16-bit)"
STRIPES = "Judd et al., Stripes: Bit-Serial Deep Neural Network Computing, MICRO 2016"
SHAPESHIFTER = ("Lascorz et al., ShapeShifter: Enabling Fine-Grain Data Width Adaptation in Deep Learning, MICRO 2019 "
                "(Dynamic Stripes: Delmas et al., arXiv 1706.00504, 2017)")
LOOM = "Sharify et al., Loom: Exploiting Weight and Activation Precisions to Accelerate CNNs, DAC 2018"
PRAGMATIC = "Albericio et al., Bit-Pragmatic Deep Neural Network Computing, MICRO 2017"
LACONIC = "Sharify et al., Laconic Deep Learning Inference Acceleration, ISCA 2019"
TACTICAL = "Delmas Lascorz et al., Bit-Tactical, ASPLOS 2019"
DIFFY = "Mahmoud et al., Diffy: a Deja vu-Free Differential Deep Neural Network Accelerator, MICRO 2018"
BITFUSION = ("Sharma et al., Bit Fusion: Bit-Level Dynamically Composable Architecture for Accelerating Deep Neural "
             "Networks, ISCA 2018 (section III: 2-bit BitBricks, 16 per Fusion Unit, fused in powers of 2; 16-bit "
             "operands by temporal fusion)")
BITFUSION_SIM = ("hsharma35/bitfusion 04ec1c8, bitfusion/src/optimizer/optimizer.py:55-73 (buffer fills of "
                 "weights x wprec and activations x iprec bits), :166 (DRAM reads = those fills) and :209-228 (buffer "
                 "reads x iprec / wprec bits)")
BITFUSION_OUT = ("hsharma35/bitfusion 04ec1c8, bitfusion/src/optimizer/optimizer.py:75-77 (oprec = 32: output "
                 "buffer traffic in outputs x 32 bits) and :169 (DRAM writes = that traffic); "
                 "bitfusion/src/simulator/stats.py:58-72 (energy charged per bit)")
VALUE_WORD_BITS = 16   # the datapath holds values as 16-bit words (DaDianNao's 16-bit fixed point)
DESIGNS = ("dadiannao", "stripes", "shapeshifter", "loom", "pragmatic", "laconic", "bitfusion")
SEARCH_SHAPES = ("T", "L")
TACTICAL_DESIGNS = ("dadiannao", "shapeshifter", "pragmatic")
DIFFY_DESIGNS = ("shapeshifter", "pragmatic")


@dataclass(frozen=True)
class BitSerialSpec:
    """DaDianNao-style tiles running one of the bit-serial / precision-exploiting designs."""

    design: str = spec_field(
        "Step-cost rule: dadiannao (bit-parallel, one cycle per step), stripes (p_a cycles per step, the "
        "layer's profiled activation precision), shapeshifter (activation width detected at run time per "
        "group of columns), loom (activation and weight bits serial), pragmatic (only the non-zero bits of "
        "the activations, two-stage shifter), laconic (non-zero terms of both operands).", "dadiannao",
        choices=DESIGNS, source=f"{DADN}; {STRIPES}; {SHAPESHIFTER}; {LOOM}; {PRAGMATIC}; {LACONIC}")
    tiles: int = spec_field("Tiles; each computes its own filters over the same windows.", 16, positive=True,
                            source=DADN)
    rows: int = spec_field("Filters per tile (rows of the tile's PE grid).", 16, positive=True, source=DADN)
    columns: int = spec_field(
        "Windows per tile processed at once (columns of the PE grid): 1 for the bit-parallel DaDianNao, "
        "16 for the bit-serial designs (16 windows x 16 filters of serial inner-product units).", 1,
        positive=True, source=f"{DADN}; {STRIPES} (16 windows per tile); {DNNSIM}")
    lanes: int = spec_field("Activation / weight pairs per inner product (channels per brick).", 16,
                            positive=True, source=DADN)
    pe_width: int = spec_field("Bits of the datapath: the widest precision a layer may ask for.", 16,
                               positive=True, source=DADN)
    group_size: int = spec_field(
        "shapeshifter: columns per precision group (only matters with column_registers > 0).", 1,
        positive=True, source=f"{SHAPESHIFTER}; {DNNSIM}")
    column_registers: int = spec_field(
        "shapeshifter / pragmatic: steps a column (group) may run ahead of the slowest one (0: every column "
        "waits for the slowest at every step).", 0, minimum=0, maximum=64, source=f"{PRAGMATIC} (PRA-1R); {DNNSIM}")
    minor_bit: bool = spec_field(
        "shapeshifter: also trim the trailing zero bits (width = msb - lsb + 1).", False,
        source=f"{SHAPESHIFTER}; {DNNSIM}")
    pe_serial_bits: int = spec_field("loom: activation bits processed per cycle.", 1, positive=True, maximum=16,
                                     source=f"{LOOM} (Loom-1b); {DNNSIM}")
    dynamic_weights: bool = spec_field(
        "loom: detect the weight width per step and tile at run time instead of using the profiled p_w.",
        False, source=f"{LOOM}; {DNNSIM}")
    bits_first_stage: int = spec_field(
        "pragmatic: bits of the first-stage shifter (each lane's term must lie within 2^bits - 1 positions "
        "of the column's lowest pending term).", 2, minimum=0, maximum=4, source=f"{PRAGMATIC} (PRA-2b)")
    booth_encoding: bool = spec_field(
        "pragmatic / laconic: Booth-like recoding of the values into signed power-of-two terms (DNNsim's "
        "sequential recoder).", False, source=f"{PRAGMATIC}; {LACONIC}; {DNNSIM}")
    tactical: bool = spec_field(
        "Bit-Tactical weight scheduling on dadiannao (TCL), shapeshifter (TCLp) or pragmatic (TCLe): zero "
        "weights are replaced by non-zero ones promoted from the next lookahead_h steps and nearby lanes, and "
        "all-zero weight lines are skipped.", False, source=TACTICAL)
    lookahead_h: int = spec_field("tactical: steps a weight may be promoted from.", 2, positive=True, maximum=16,
                                  source=f"{TACTICAL}; {DNNSIM}")
    lookaside_d: int = spec_field("tactical: lanes (besides the own lane) a weight may be promoted from.", 5,
                                  positive=True, maximum=64, source=f"{TACTICAL}; {DNNSIM}")
    search_shape: str = spec_field("tactical: shape of the promotion window ('T' or 'L').", "T",
                                   choices=SEARCH_SHAPES, source=f"{TACTICAL}; {DNNSIM}")
    diffy: bool = spec_field(
        "shapeshifter / pragmatic: process the differences of horizontally adjacent activations (Diffy), "
        "the first window column against zero.", False, source=f"{DIFFY}; {DNNSIM}")
    bricks: int = spec_field(
        "bitfusion: BitBricks per processing element (grid position); a Fusion Unit has 16. A step's ``lanes`` "
        "products of a' x w' bits need lanes x (a'/2) x (w'/2) brick operations.", 16, positive=True,
        source=BITFUSION)
    brick_bits: int = spec_field("bitfusion: operand bits of one BitBrick (a 2-bit x 2-bit signed multiply).", 2,
                                 positive=True, maximum=8, source=BITFUSION)
    packed_storage: bool = spec_field(
        "Weights and activations cross DRAM and the on-chip buffers at the layer's bit width (weight_bits / "
        "activation_bits), packed into word_bits words: a line of ``lanes`` values is ceil(lanes x bits / "
        "word_bits) words. False: every value is one word. Outputs are written at output_bits either way.", False,
        source=BITFUSION_SIM)
    output_bits: int = spec_field(
        "Width at which each output is written to the neuron memory and to DRAM: ceil(output_bits / word_bits) "
        "words per output. 16: one 16-bit word, as DaDianNao and DNNsim hold every value; Bit Fusion's "
        "simulator writes 32-bit outputs. A multiple of 16.", VALUE_WORD_BITS, positive=True, maximum=64,
        source=f"{DADN}; {DNNSIM}; {BITFUSION_OUT}")
    accumulator_bits: int = spec_field("Width of a partial sum.", 32, positive=True,
                                       source="estimate: 16-bit products accumulated in 32 bits")
    neuron_memory_size: int = spec_field("Central activation memory (eDRAM).", 4 * 1024 * 1024, unit="size",
                                         positive=True, source=f"{DADN} (4 MB NM)")
    synapse_buffer_size: int = spec_field("Weight buffer of each tile (eDRAM).", 2 * 1024 * 1024, unit="size",
                                          positive=True, source=f"{DADN} (2 MB SB per tile)")

    def __post_init__(self) -> None:
        if self.tactical and self.design not in TACTICAL_DESIGNS:
            raise ValueError(f"bitserial.tactical needs design {', '.join(TACTICAL_DESIGNS)} (got {self.design})")
        if self.diffy and self.design not in DIFFY_DESIGNS:
            raise ValueError(f"bitserial.diffy needs design {', '.join(DIFFY_DESIGNS)} (got {self.design})")
        if self.tactical and self.diffy:
            raise ValueError("bitserial.tactical and bitserial.diffy cannot both be on")
        if self.tactical and self.search_shape == "T" and (self.lookahead_h, self.lookaside_d) != (2, 5):
            raise ValueError("bitserial.search_shape 'T' is defined for lookahead_h 2 and lookaside_d 5 only")
        if self.tactical and self.lookaside_d >= self.lanes:
            raise ValueError(f"bitserial.lookaside_d ({self.lookaside_d}) must be below lanes ({self.lanes})")
        if self.pe_width > VALUE_WORD_BITS:
            raise ValueError(f"bitserial.pe_width {self.pe_width}: values are held as 16-bit words (at most 16)")
        if self.output_bits % VALUE_WORD_BITS:
            raise ValueError(f"bitserial.output_bits {self.output_bits}: outputs are written as whole 16-bit words "
                             "(expected a multiple of 16)")

    @property
    def dense_macs_per_cycle(self) -> int:
        """Bit-parallel products per cycle (DaDianNao), or serial inner-product lanes (bit-serial designs)."""
        return self.tiles * self.rows * self.columns * self.lanes
