"""The ``scnn:`` section of an arch config (family: scnn).

One section describes SCNN and the paper's comparison designs on the same PE array
(Parashar et al., "SCNN", ISCA 2017, Table 3 and Table 6); ``design`` selects which.
Parameters the paper does not give are marked "(?)" in their ``source`` with the choice made.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

PAPER = "Parashar et al., SCNN, ISCA 2017"
DESIGNS = ("scnn", "scnn_sparse_a", "scnn_sparse_w", "dcnn", "dcnn_opt")
DNNSIM = "DNNsim's own rule (isakedo/DNNsim 4748a60, core/src/SCNN.cpp)"
BANK_MAPPINGS = ("linear", "channel_spread", "dnnsim_xor")
WEIGHT_ORDERS = ("rs_then_k", "k_then_rs")
KC_RULES = ("max_fit", "fixed", "output_tile")
PARTITIONS = ("planar", "padded_blocks")
BARRIERS = ("group", "group_channel")
HALO_CHARGES = ("exchange", "largest_region_serial")
OUT_OF_PLANE = ("banked", "slot_only")
DRAM_MODES = ("modelled", "ignored")
STRIDE_PHASES = ("aligned", "dnnsim")
FC_LAYOUTS = ("channels", "dnnsim_planes")
SCATTERS = ("serialise", "fifo", "fifo_unbounded")
DENSE_PARTIAL_SUMS = ("in_place", "buffer")
DRAM_TILE_ORDERS = ("fewest_tiles", "min_traffic")
TIMELOOP = ("Parashar et al., 'Timeloop: A Systematic Approach to DNN Accelerator Evaluation', ISPASS 2019 (its "
            "mapper searches the mapspace of tilings and loop orders for the best mapping, e.g. the lowest energy; the "
            "SCNN paper's energy figures were evaluated with TimeLoop)")
KIM = ("Kim, Park, Park, 'Optimization of Scatter Network Architectures and Bank Allocations for Sparse CNN "
       "Accelerators', IEEE Access 10, 2022, doi 10.1109/ACCESS.2022.3199010 (abstract: FIFOs and crossbar buses in "
       "the scatter network, products not immediately delivered owing to bus contention)")


@dataclass(frozen=True)
class SCNNSpec:
    """SCNN and its dense baselines DCNN / DCNN-opt (Parashar et al., ISCA 2017)."""

    design: str = spec_field(
        "Which design of the paper's Table 6 runs on the array: scnn (skip zero weights and activations, "
        "Cartesian product), scnn_sparse_a / scnn_sparse_w (exploit only activation / weight sparsity), "
        "dcnn (dense dot product), dcnn_opt (dcnn that gates multipliers on zero operands and compresses "
        "DRAM transfers: energy only).", "scnn", choices=DESIGNS, source=f"{PAPER}, Table 6")
    pe_rows: int = spec_field("PE rows of the array (planar tiles along the activation height).", 8,
                              positive=True, source=f"{PAPER}, Table 3 (64 PEs, 8 x 8)")
    pe_cols: int = spec_field("PE columns of the array (planar tiles along the activation width).", 8,
                              positive=True, source=f"{PAPER}, Table 3 (64 PEs, 8 x 8)")
    mult_f: int = spec_field("F: non-zero weights per weight vector (rows of the F x I multiplier array).", 4,
                             positive=True, source=f"{PAPER}, Table 3 (F x I = 4 x 4)")
    mult_i: int = spec_field("I: non-zero activations per activation vector (columns of the multiplier array).", 4,
                             positive=True, source=f"{PAPER}, Table 3 (F x I = 4 x 4)")
    accumulator_banks: int = spec_field(
        "A: accumulator banks per PE (the scatter crossbar is F*I x A).", 32,
        positive=True, source=f"{PAPER}, Table 3 (A = 2 x F x I = 32)")
    accumulator_entries: int = spec_field("Partial sums per accumulator bank (per buffer of the double buffer).", 32,
                                          positive=True, source=f"{PAPER}, Table 3 (32 entries per bank)")
    accumulator_bits: int = spec_field("Width of a partial sum.", 24, positive=True,
                                       source=f"{PAPER}, Table 3 (24-bit accumulate)")
    index_bits: int = spec_field("Width of the zero-run index stored with each compressed value.", 4,
                                 positive=True, source=f"{PAPER}, Table 3 (4-bit index per 16-bit value)")
    iaram_size: int = spec_field("Input activation RAM per PE (holds the PE's tile of every input channel; when one "
                                 "pixel of every channel does not fit, of one channel chunk at a time).",
                                 10 * 1024, unit="size", positive=True, source=f"{PAPER}, Table 3 (10 KB)")
    oaram_size: int = spec_field("Output activation RAM per PE (swapped with the IARAM between layers).",
                                 10 * 1024, unit="size", positive=True, source=f"{PAPER}, Table 3 (10 KB)")
    weight_fifo_entries: int = spec_field("Weight FIFO depth per PE; one entry is F weights with their indices.", 50,
                                          positive=True, source=f"{PAPER}, Table 3 (50 entries)")
    bank_mapping: str = spec_field(
        "Accumulator address -> bank. 'linear': bank = address mod A with address = k * (Hacc * Wacc) + "
        "y * Wacc + x in the PE's accumulator region (word interleaving); 'channel_spread': bank = "
        "(k * (A / F) + y * Wacc + x) mod A, which spreads the F output channels of a weight vector over the "
        "banks; 'dnnsim_xor': bank = (16 (k_2 ^ y_1 ^ x_1) + 8 y_0 + 4 x_0 + k mod 4) mod A on the filter index k "
        "of the layer and the GLOBAL output coordinates (bit i of v is v_i).", "linear", choices=BANK_MAPPINGS,
        source=f"(?) the paper gives no bank hash (only A = 2 F I); choice: linear; dnnsim_xor is {DNNSIM}")
    weight_order: str = spec_field(
        "Order of a (channel, group) weight block in the FIFO, and so which weights share an F-vector: "
        "'rs_then_k' (R x S fastest, then K: the paper's Fig. 7 encoding; neighbouring taps of one filter "
        "share a vector and often hit the same output, hence the same bank) or 'k_then_rs' (K fastest: the "
        "F weights of a vector belong to different output channels; kernel row r, then column s, then filter k "
        "fastest: DNNsim's inner-loop order). The loop nest (I-vectors outer, F-vectors inner, or the "
        "reverse) changes no count: steps do not interact.", "rs_then_k", choices=WEIGHT_ORDERS,
        source=f"{PAPER}, Fig. 7 (weights linearised over R x S then K); k_then_rs is {DNNSIM}")
    kc_rule: str = spec_field(
        "How Kc (output channels per group) is chosen. 'max_fit': the largest Kc whose partial sums "
        "Kc x (accumulator region of the largest PE tile) fit one accumulator buffer (A x entries); "
        "'fixed': the value of 'kc' (an error if it does not fit); 'output_tile': floor(A x entries / "
        "(ceil(out_w / PE columns) x ceil(out_h / PE rows))), the OUTPUT tile with no room for halo partial sums, "
        "not rounded, the last group partial.", "max_fit", choices=KC_RULES,
        source=f"(?) {PAPER}, Sec. 4: the accumulators hold one output-channel group's partial sums (sized for the "
               f"halo-extended Kc (Wt+R-1)(Ht+S-1) tile); choice: the largest Kc that fits; output_tile is {DNNSIM}")
    kc: int = spec_field("Kc when kc_rule is 'fixed' (capped at the output channels of the layer).", 8, positive=True,
                         source=f"{PAPER} (Kc = 8 for late GoogLeNet 1x1 layers)")
    halo_words_per_cycle: int = spec_field(
        "Partial sums a PE sends to its neighbours per cycle during the halo exchange.", 1, positive=True,
        source="(?) not given by the paper; choice: one partial sum per cycle")
    ppu_outputs_per_cycle: int = spec_field(
        "Outputs the post-processing unit (ReLU, compression) drains from the accumulators per cycle.", 4,
        positive=True, source="(?) not given by the paper; choice: F outputs per cycle")
    partition: str = spec_field(
        "How the input plane is cut into PE tiles. 'planar': the unpadded plane split as evenly as possible "
        "(array_split: the first tiles one row / column longer); 'padded_blocks': the plane zero-padded by the "
        "layer's padding, rounded up to a multiple of the PE rows / columns and cut into equal blocks "
        "ceil((H + 2 pad) / PE rows) per side (small planes leave PEs without work).", "planar",
        choices=PARTITIONS, source=f"{PAPER}, Sec. 4 (planar tiles of the input plane); padded_blocks is {DNNSIM}")
    barrier: str = spec_field(
        "Where the PEs synchronise. 'group': after each output-channel group (each PE runs through the "
        "group's input channels on its own); 'group_channel': after every (output-channel group, input "
        "channel) pair.", "group", choices=BARRIERS,
        source=f"{PAPER}, Sec. 4 (barrier between output-channel groups); group_channel is {DNNSIM}")
    halo_charge: str = spec_field(
        "Drain of a group's accumulators. 'exchange': the halo partial sums the largest-halo PE sends "
        "(halo_words_per_cycle), then the PPU (ppu_outputs_per_cycle), overlapped with the next group's "
        "compute (double-buffered accumulators); 'largest_region_serial': (largest single halo region of a "
        "block, from the axis lengths (R-1-pad, block, pad)) x (filters of the group) cycles, charged after the "
        "group with no overlap and no PPU time.", "exchange", choices=HALO_CHARGES,
        source=f"{PAPER}, Sec. 4 (halo partial sums exchanged at the end of a group); largest_region_serial is "
               f"{DNNSIM}")
    out_of_plane: str = spec_field(
        "Products whose output falls outside the output plane. 'banked': they take their multiplier slot and "
        "go to the accumulators (dropped at the drain), so they count in bank conflicts; 'slot_only': they take "
        "their multiplier slot but go to no bank.", "banked", choices=OUT_OF_PLANE,
        source=f"(?) the paper is silent; choice: banked; slot_only is {DNNSIM}")
    dram: str = spec_field(
        "'modelled': DRAM transfers take time at dram_bandwidth and the IARAM bounds the tiling (temporal "
        "tiles, channel chunks); 'ignored': transfers are counted but take no time and every layer runs in "
        "one pass, whatever the buffers hold.", "modelled", choices=DRAM_MODES,
        source=f"{PAPER}, Sec. 6: temporal tiling through DRAM at a nominal 50 GB/s; ignored is {DNNSIM} (DRAM and buffers not in SCNN cycles)")
    stride_phases: str = spec_field(
        "Which activations meet which weights when the stride is above 1. 'aligned': the convolution's "
        "arithmetic, an activation at padded row y + pad meets the weight rows r with (y + pad - r) % stride == 0, "
        "output row (y + pad - r) / stride; 'dnnsim': activation phase (y + pad) % stride meets weight phase "
        "(r + pad) % stride and the output row is (y + pad - r) / stride truncated toward zero (C division), which "
        "pairs activations with weights they do not meet in the convolution when pad % stride != 0 (macs_issued "
        "then counts those in-plane products, as DNNsim's mults do).", "aligned", choices=STRIDE_PHASES,
        source=f"(?) the paper does not describe stride; aligned is the convolution; dnnsim is {DNNSIM}")
    fc_layout: str = spec_field(
        "How a fully connected (GEMM) layer meets the PE array. 'channels': a 1 x 1 plane with one channel per "
        "input (every PE but one idle); 'dnnsim_planes': the inputs zero-padded to a multiple of 256 and cut into "
        "16 x 16 planes, run as a 16 x 16 convolution with one output pixel.", "channels", choices=FC_LAYOUTS,
        source=f"(?) the paper runs convolutional layers only; dnnsim_planes is {DNNSIM} (split_4D)")
    scatter: str = spec_field(
        "How a step's products reach the accumulator banks (each bank adds one product per cycle). "
        "'serialise': no buffering; a step's products for one bank enter it one per cycle and the next step "
        "starts when the busiest bank has taken all of them (step cycles = its busiest bank's products). "
        "'fifo': an input FIFO of scatter_fifo_depth products in front of every bank; in the cycle a step issues, "
        "each of its products is written into its bank's FIFO if there is room (the crossbar writes any number "
        "per bank per cycle), the rest wait in the multiplier output registers and enter as the bank frees "
        "entries (one per cycle); the multiplier array issues the next step in the cycle after the last product "
        "of the current one has entered. A bank holds at most depth + 1 products in a cycle (the FIFO and the "
        "one it adds), so step t, issued with Q_b products queued at bank b, takes "
        "max(1, max_b(Q_b + n_b(t) - depth)) cycles; depth 0 is 'serialise'. 'fifo_unbounded': FIFOs never "
        "fill, so the multipliers issue one step per cycle and each bank drains at one product per cycle: the "
        "fastest any scatter network can deliver this bank mapping's products. With every choice the PE's "
        "group (or (group, channel) barrier unit) ends when its banks have drained.", "serialise",
        choices=SCATTERS, source=f"(?) the paper gives A = 2 F I banks but no queueing; field default serialise (dense designs, the "
        f"DNNsim preset), arch_configs/scnn.yaml: fifo; "
        f"FIFOs between multipliers and crossbar: {KIM}; per-bank FIFOs (not per-multiplier ones, with an "
        f"arbiter, as Kim et al.) are an assumption")
    scatter_fifo_depth: int = spec_field(
        "Products each bank's input FIFO holds when scatter is 'fifo' (0: no FIFO, the same cycles as "
        "'serialise').", 4, minimum=0,
        source="(?) no depth is given by the paper nor readable in Kim et al.; assumption: 4 products per bank")
    dense_partial_sums: str = spec_field(
        "DCNN / DCNN-opt only: where a dot product's sum goes (energy only; cycles unchanged). 'in_place': each "
        "output's dot product runs to its end in the PE (adder tree and register) and the output is written "
        "once; 'buffer': input stationary, as the paper names DCNN's dataflow (PT-IS-DP-dense: activations "
        "held while the weights that use them stream by), so partial sums live in the accumulator buffer and "
        "each dot product of I products (one of the F outputs of the F x I array in a cycle) is added into its "
        "partial sum with a read and a write: ceil(products / I) read-modify-writes.", "in_place",
        choices=DENSE_PARTIAL_SUMS,
        source=f"{PAPER}, Table 6 (DCNN: PT-IS-DP-dense); (?) how the paper charged DCNN's partial sums is not "
               "readable; choice: in_place; buffer's one update per I products (F outputs x I inputs) is an "
               "assumption")
    dram_tile_order: str = spec_field(
        "How a layer whose inputs do not fit the IARAMs is cut into passes through DRAM (dram 'modelled' only). "
        "The array runs every pass as (temporal tile, channel chunk), temporal tiles outer, and holds no weights "
        "between passes (the weight FIFO streams them), so a layer moves: its inputs and outputs once, its "
        "weights once per temporal tile, its halo partial sums crossing temporal tiles (written and read back per "
        "pass) and, between channel chunks, its owned partial sums through DRAM when they do not fit the OARAM. "
        "'fewest_tiles': the fewest n x n temporal tiles whose input tiles fit, channel chunks only when one-pixel "
        "tiles do not fit; 'min_traffic': per layer, of the temporal splits from one tile up to the fewest that "
        "fit without chunks (each with the fewest channel chunks that fit the IARAM and Kc >= 1), the one moving "
        "the fewest DRAM bits (ties: fewer passes): splitting the input channels instead of the plane reads "
        "the weights once but carries partial sums between chunks.", "fewest_tiles", choices=DRAM_TILE_ORDERS,
        source=f"(?) the SCNN paper does not say how it ordered or sized its DRAM tiles; choice: fewest_tiles; "
               f"min_traffic picks the least traffic, as a mapper does: {TIMELOOP}")
    dram_bandwidth: float = spec_field("DRAM bandwidth for temporal tiles, weights and spilled outputs.", 50.0,
                                       unit="bandwidth", positive=True,
                                       source=f"{PAPER}, Sec. 6: nominal DRAM bandwidth 50 GB/s = 50 B/cycle at the paper's 1 GHz")

    def __post_init__(self) -> None:
        dense = self.design in ("dcnn", "dcnn_opt")
        if dense and (self.barrier != "group" or self.out_of_plane != "banked" or self.bank_mapping == "dnnsim_xor"):
            raise ValueError("scnn.barrier 'group_channel', out_of_plane 'slot_only' and bank_mapping "
                             "'dnnsim_xor' describe the Cartesian PE: they need design scnn, scnn_sparse_a or "
                             "scnn_sparse_w")
        if dense and self.scatter != "serialise":
            raise ValueError("scnn.scatter 'fifo' / 'fifo_unbounded' queue the Cartesian PE's products at its banks: "
                             "they need design scnn, scnn_sparse_a or scnn_sparse_w (a dense design needs scnn.scatter: serialise)")
        if not dense and self.dense_partial_sums != "in_place":
            raise ValueError("scnn.dense_partial_sums 'buffer' describes the dense dot-product PE's partial sums: it "
                             "needs design dcnn or dcnn_opt (the Cartesian PE always adds into its banks)")
        if self.design != "scnn" and (self.stride_phases != "aligned" or self.fc_layout != "channels"):
            raise ValueError("scnn.stride_phases 'dnnsim' and fc_layout 'dnnsim_planes' pair or pad operands as "
                             "DNNsim's SCNN does, which skips zero weights and activations: they need design scnn "
                             "(other designs would multiply the padding or the mispaired zeros)")
        if self.design in ("scnn", "scnn_sparse_a", "scnn_sparse_w") and self.accumulator_banks < 1:
            raise ValueError("scnn.accumulator_banks must be >= 1")
        if self.bank_mapping == "channel_spread" and self.accumulator_banks % self.mult_f:
            raise ValueError(f"scnn.bank_mapping 'channel_spread' needs accumulator_banks "
                             f"({self.accumulator_banks}) to be a multiple of mult_f ({self.mult_f})")

    @property
    def pes(self) -> int:
        return self.pe_rows * self.pe_cols

    @property
    def multipliers_per_pe(self) -> int:
        return self.mult_f * self.mult_i

    @property
    def accumulator_capacity(self) -> int:
        """Partial sums one accumulator buffer holds (A x entries)."""
        return self.accumulator_banks * self.accumulator_entries
